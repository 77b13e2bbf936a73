import Foundation

/// The control protocol between `recordctl` and `recordd`: one JSON object per line over a
/// Unix stream socket (docs/PROTOCOL.md). Version 1.
public enum ControlProtocol {
    /// The protocol version this build speaks.
    public static let version = 1
    /// The longest request line accepted, in bytes.
    public static let maxLineBytes = 64 * 1024
}

/// A request: `{"v":1,"id":"7","cmd":"start","args":{…}}`.
public struct ControlRequest: Codable, Sendable {
    /// Protocol version of the client.
    public var v: Int
    /// Echoed in the reply, so a client can match replies to requests.
    public var id: String?
    /// The command: hello, start, stop, discard, pause, resume, status, events, shutdown.
    public var cmd: String
    /// Arguments of `start`.
    public var args: StartArguments?

    /// Creates a request.
    public init(cmd: String, id: String? = nil, args: StartArguments? = nil) {
        self.v = ControlProtocol.version
        self.id = id
        self.cmd = cmd
        self.args = args
    }
}

/// A reply: `{"v":1,"id":"7","ok":true,"result":{…}}` or `{"v":1,"id":"7","ok":false,"error":{…}}`.
public struct ControlReply: Codable, Sendable {
    /// Protocol version of the service.
    public var v: Int = ControlProtocol.version
    /// The request's id.
    public var id: String?
    /// Whether the request succeeded.
    public var ok: Bool
    /// The result, on success.
    public var result: ControlResult?
    /// The error, on failure.
    public var error: ControlError?
    /// An event (only on an `events` subscription).
    public var event: ServiceEvent?

    /// A success.
    public static func success(_ id: String?, _ result: ControlResult) -> ControlReply {
        ControlReply(id: id, ok: true, result: result)
    }
    /// A failure.
    public static func failure(_ id: String?, _ error: ControlError) -> ControlReply {
        ControlReply(id: id, ok: false, error: error)
    }
}

/// An error reply: a stable code for programs and a message for people.
public struct ControlError: Codable, Sendable, Error, CustomStringConvertible {
    /// Stable codes: bad_request, unknown_command, too_large, version, busy, not_recording,
    /// invalid_state, bad_argument, unavailable, cannot_create_output, failed.
    public var code: String
    /// What failed and what to do.
    public var message: String

    /// Creates an error.
    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
