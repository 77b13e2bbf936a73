import Foundation

/// Turns one request line into a request or into the error reply it deserves
/// (docs/PROTOCOL.md). Pure and total: any bytes give an answer, never a trap (fuzzed by
/// `rk-fuzz-control`, scripts/fuzz.sh).
///
/// A rejected line's reply carries the request's `id` whenever one can be recovered, even from
/// a line that is not valid JSON or not a valid request, so a client can match it.
public enum ControlRequestParser {
    /// What a line is.
    public enum Outcome: Sendable {
        /// A well-formed request of the supported version.
        case request(ControlRequest)
        /// Only blanks: no reply.
        case blank
        /// Malformed or of another version: send this reply.
        case rejected(ControlReply)
    }

    /// The longest id echoed back, in UTF-8 bytes (a longer one is not echoed).
    public static let maxEchoedIDBytes = 256

    /// Parses one line (without its newline).
    public static func parse(_ bytes: [UInt8]) -> Outcome {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { return .blank }
        guard let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(bytes)) else {
            return .rejected(.failure(recoverID(from: bytes),
                                      ControlError("bad_request", "not a JSON request object with \"v\" and \"cmd\" (docs/PROTOCOL.md)")))
        }
        guard request.v == ControlProtocol.version else {
            return .rejected(.failure(request.id, ControlError("version", "protocol version \(request.v) is not supported; this service speaks \(ControlProtocol.version)")))
        }
        return .request(request)
    }

    /// The `id` of a line that is not a valid request: the top-level string `"id"` of a JSON
    /// object, else the first `"id": "…"` pair found in text that
    /// is not JSON (a truncated or otherwise broken line). Nil when none, or when it is longer
    /// than ``maxEchoedIDBytes``.
    public static func recoverID(from bytes: [UInt8]) -> String? {
        let data = Data(bytes)
        if let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
            guard let dict = object as? [String: Any] else { return nil }
            return (dict["id"] as? String).flatMap(bounded)
        }
        return scanID(bytes)
    }

    /// Finds `"id"`, blanks, `:`, blanks, then a JSON string literal, and decodes the literal.
    private static func scanID(_ b: [UInt8]) -> String? {
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
            return bounded(s)
        }
        return nil
    }

    private static func skipBlanks(_ b: [UInt8], _ from: Int) -> Int {
        var j = from
        while j < b.count, b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0D || b[j] == 0x0A { j += 1 }
        return j
    }

    private static func bounded(_ s: String) -> String? { s.utf8.count <= maxEchoedIDBytes ? s : nil }
}
