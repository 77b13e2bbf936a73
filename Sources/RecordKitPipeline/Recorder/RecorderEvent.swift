/// One state transition, with why it happened.
package struct RecorderEvent: Sendable, Codable {
    /// The state entered (for handler events, the state the recording is in).
    package var state: RecorderState
    /// Why: "user", "window hidden", "handler 'file' failed: …", ….
    package var reason: String
    /// Broadcast time of the event, in seconds.
    package var time: Double
    /// The handler concerned, for handler events.
    package var handler: String?
    /// A warning while recording (a server lost, the recording goes on degraded): the state
    /// did not change; `reason` says what happened and what the recording does now.
    package var isWarning: Bool = false
    /// For an event a handler sent (``BroadcastEvent``): its kind (`"file-part"`); for the
    /// recorder's own warnings, ``overloadKind`` or nil.
    package var kind: String?
    /// The kind of the warning sent once when a video encoder falls behind and frames start to
    /// be dropped: the recording goes on, whole but thinner (every kept frame on time).
    package static let overloadKind = "overload"
    /// For an event a handler sent: the file it is about, if any.
    package var path: String?

    /// Creates an event.
    package init(state: RecorderState, reason: String, time: Double, handler: String? = nil, isWarning: Bool = false,
                kind: String? = nil, path: String? = nil) {
        self.kind = kind
        self.path = path
        self.state = state
        self.reason = reason
        self.time = time
        self.handler = handler
        self.isWarning = isWarning
    }
}
