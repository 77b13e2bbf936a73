/// Something a handler tells the people watching the recording about, at a moment of its own
/// choosing rather than in answer to a request: a file part closed and finalized while the
/// recording goes on (`recordctl split`, `--split-every`). The service turns each one into an
/// event of its event stream (`recordctl events`), with ``kind`` as the event's kind and
/// ``path`` as its path. Sent with ``BroadcastContext/publish(event:)``.
public struct BroadcastEvent: Sendable, Hashable {
    /// A stable, lower-case, dash-separated name programs can match (`"file-part"`).
    public var kind: String
    /// One line for people: what happened, with the numbers that matter.
    public var message: String
    /// The file (or URL) the event is about, if any: absolute, complete when the event is sent.
    public var path: String?

    /// Creates an event.
    public init(kind: String, message: String, path: String? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
    }
}
