import Foundation

/// Turns one request line into a ``ControlRequest``, or into the error reply it deserves: the
/// reply echoes the request's `id` whenever the line has one, so a client can match even its
/// malformed requests.
enum RequestDecoding {
    /// What one line is.
    enum Outcome {
        /// A well-formed request of a known command and version.
        case request(ControlRequest)
        /// An error reply to send instead.
        case refused(ControlReply)
    }

    /// The members every request has, read leniently first.
    private struct Envelope: Decodable {
        var v: Int?
        var id: String?
        var cmd: String?

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            v = try? c.decodeIfPresent(Int.self, forKey: .v)
            id = try? c.decodeIfPresent(String.self, forKey: .id)
            cmd = try? c.decodeIfPresent(String.self, forKey: .cmd)
        }
        private enum CodingKeys: String, CodingKey { case v, id, cmd }
    }

    /// Decodes `line` (without its newline).
    static func decode(_ line: [UInt8]) -> Outcome {
        let data = Data(line)
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data) else {
            return .refused(.failure(nil, ControlError(.badRequest, "not a JSON request object with \"v\" and \"cmd\" (docs/PROTOCOL.md)")))
        }
        let id = envelope.id
        guard let v = envelope.v, let name = envelope.cmd else {
            return .refused(.failure(id, ControlError(.badRequest, "a request needs \"v\" (a number) and \"cmd\" (a string) (docs/PROTOCOL.md)")))
        }
        guard v == ControlProtocol.version else {
            return .refused(.failure(id, ControlError(.version, "protocol version \(v) is not supported; this service speaks \(ControlProtocol.version)")))
        }
        guard ControlCommand(rawValue: name) != nil else {
            let known = ControlCommand.allCases.map(\.rawValue).joined(separator: ", ")
            return .refused(.failure(id, ControlError(.unknownCommand, "unknown command '\(name.prefix(64))'; known: \(known)")))
        }
        do {
            return .request(try JSONDecoder().decode(ControlRequest.self, from: data))
        } catch {
            return .refused(.failure(id, ControlError(.badRequest, "malformed \(name) request: \(describe(error))")))
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not valid" }
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
            return c.codingPath.map(\.stringValue).joined(separator: ".") + ": " + c.debugDescription
        case .keyNotFound(let key, let c):
            return (c.codingPath + [key]).map(\.stringValue).joined(separator: ".") + ": missing"
        @unknown default:
            return "not valid"
        }
    }
}
