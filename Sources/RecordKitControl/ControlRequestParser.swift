import Foundation

/// Turns one request line into a request or into the error reply it deserves
/// (docs/PROTOCOL.md): ``RequestDecoding`` for anything JSON, plus the `id` of a line that is
/// not JSON at all (a truncated one). Pure and total: any bytes give an answer, never a trap
/// (fuzzed by `rk-fuzz-control`, scripts/fuzz.sh).
package enum ControlRequestParser {
    /// What a line is.
    package enum Outcome: Sendable {
        /// A well-formed request of the supported version.
        case request(ControlRequest)
        /// Only blanks: no reply.
        case blank
        /// Malformed, unknown or of another version: send this reply.
        case rejected(ControlReply)
    }

    /// The longest id echoed back from a line that is not JSON, in UTF-8 bytes.
    package static let maxEchoedIDBytes = 256

    /// Parses one line (without its newline).
    package static func parse(_ bytes: [UInt8]) -> Outcome {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { return .blank }
        switch RequestDecoding.decode(bytes) {
        case .request(let request):
            return .request(request)
        case .refused(var reply):
            if reply.id == nil, (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) == nil {
                reply.id = recoverID(from: bytes)
            }
            return .rejected(reply)
        }
    }

    /// The first `"id": "…"` pair found in a line that is not JSON (a truncated or otherwise
    /// broken request), decoded as a JSON string; nil when there is none or it is longer than
    /// ``maxEchoedIDBytes``.
    package static func recoverID(from b: [UInt8]) -> String? {
        let key: [UInt8] = Array("\"id\"".utf8)
        var i = 0
        while i + key.count <= b.count {
            guard b[i..<(i + key.count)].elementsEqual(key) else { i += 1; continue }
            var j = skipBlanks(b, i + key.count)
            guard j < b.count, b[j] == UInt8(ascii: ":") else { i += 1; continue }
            j = skipBlanks(b, j + 1)
            guard j < b.count, b[j] == UInt8(ascii: "\"") else { i += 1; continue }
            // The literal ends at the first quote not escaped by a backslash.
            var k = j + 1
            while k < b.count, b[k] != UInt8(ascii: "\"") { k += b[k] == UInt8(ascii: "\\") ? 2 : 1 }
            guard k < b.count, let s = try? JSONDecoder().decode(String.self, from: Data(b[j...k])) else { return nil }
            return s.utf8.count <= maxEchoedIDBytes ? s : nil
        }
        return nil
    }

    private static func skipBlanks(_ b: [UInt8], _ from: Int) -> Int {
        var j = from
        while j < b.count, b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0D || b[j] == 0x0A { j += 1 }
        return j
    }
}
