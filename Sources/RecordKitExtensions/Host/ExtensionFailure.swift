/// Why the host ended an out-of-process extension. Each reason says which limit or rule the
/// extension broke, in the words status and events show.
enum ExtensionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The process could not be started.
    case spawnFailed(String)
    /// The handshake failed (no answer in time, a protocol version the host does not speak…).
    case handshake(String)
    /// A handler call took longer than its limit.
    case timedOut(milliseconds: Int, call: String)
    /// Private resident memory went over the manifest's limit.
    case memory(limitMB: Int, usedMB: Int)
    /// The process died: a signal or an exit, during `call` (nil: between calls).
    case died(ExitStatus, call: String?)
    /// The process closed its end of the socket but did not exit.
    case closedConnection
    /// A message that is not JSON or not a valid message.
    case malformed(String)
    /// A valid message at the wrong time, or an impossible one.
    case protocolViolation(String)
    /// The handler's code declares other input than its manifest.
    case inputMismatch(code: String, manifest: String)

    var description: String {
        switch self {
        case .spawnFailed(let why): return "could not be started: \(why)"
        case .handshake(let why): return "failed the handshake: \(why)"
        case .timedOut(let ms, let call): return "timed out after \(ms) ms in \(call)"
        case .memory(let limit, let used): return "exceeded its memory limit of \(limit) MB (\(used) MB of private memory in use)"
        case .died(let status, let call): return "\(status) " + (call.map { "in \($0)" } ?? "between calls")
        case .closedConnection: return "closed its connection to the recorder"
        case .malformed(let what): return "sent a malformed message: \(what)"
        case .protocolViolation(let what): return "broke the protocol: \(what)"
        case .inputMismatch(let code, let manifest):
            return "asks for \(code) in its code but its manifest declares \(manifest); make them agree"
        }
    }
}
