/// The event for a handler whose published `state` changed (RTMP: `connecting`, `live`,
/// `reconnecting (attempt N)`, `gave up`), so `recordctl events` shows an outage and its end
/// without polling status. Generic: any handler that publishes a `state` gets these events.
enum HandlerStateEvent {
    /// `"rtmp-1 (rtmp://host/live/****): reconnecting (attempt 2): connection reset"`: the
    /// handler, its `url` if it published one (masked by the handler), its new state, and its
    /// `lastError` while not live.
    static func make(runner: String, info: [String: String], recording: RecorderState, time: Double) -> RecorderEvent {
        let state = info["state"] ?? "unknown"
        var reason = runner + (info["url"].map { " (\($0))" } ?? "") + ": " + state
        if state != "live", let error = info["lastError"], !error.isEmpty { reason += ": " + error }
        return RecorderEvent(state: recording, reason: reason, time: time, handler: runner)
    }
}
