/// The state of an RTMP endpoint's connection, as `state` in the handler's service info (and
/// its events) shows it.
enum RTMPSenderPhase: Equatable, Sendable {
    case connecting, live, reconnecting(attempt: Int), gaveUp, failed, finished

    /// The text shown in status and events: `live`, `reconnecting (attempt 2)`, `gave up`, ….
    var text: String {
        switch self {
        case .connecting: return "connecting"
        case .live: return "live"
        case .reconnecting(let attempt): return "reconnecting (attempt \(attempt))"
        case .gaveUp: return "gave up"
        case .failed: return "failed"
        case .finished: return "finished"
        }
    }
}
