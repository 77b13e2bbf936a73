/// The result of a successful request; which fields are set depends on the command.
public struct ControlResult: Codable, Sendable {
    /// `hello`: the service's process id.
    public var pid: Int32?
    /// `hello`: the service's protocol version.
    public var version: Int?
    /// `start`: the new recording's id.
    public var recordingId: String?
    /// `pause`, `resume`, `stop`, `discard`: the state afterwards.
    public var state: String?
    /// `stop`: where each handler's result is (file paths, endpoints with the key masked).
    public var outputs: [String]?
    /// `stop`: `"handler (url): error"` for each handler that failed (an endpoint that gave up).
    public var failures: [String]?
    /// `discard`: every artifact deleted.
    public var removed: [String]?
    /// `status`: the report.
    public var status: ServiceStatus?
    /// Anything the service wants the user to know (warnings on start).
    public var warnings: [String]?
    /// `save-replay`: the clip written (absolute path).
    public var path: String?
    /// `save-replay`: the clip's length in seconds.
    public var seconds: Double?
    /// `mark`: the marker's broadcast time in seconds.
    public var time: Double?
    /// `upload`, `uploads`, `upload-*`, `save-replay --upload`: the uploads concerned.
    public var uploads: [UploadStatus]?

    /// An empty result.
    public init() {}
}

/// One event of the service, streamed to `events` subscribers.
public struct ServiceEvent: Codable, Sendable {
    /// "state", "handler", "recovered", "service".
    public var kind: String
    /// The recording concerned, if any.
    public var recordingId: String?
    /// The state the recording is in.
    public var state: String?
    /// Why.
    public var reason: String
    /// The handler concerned, for handler events.
    public var handler: String?
    /// Broadcast time of the event, in seconds.
    public var time: Double?
    /// Wall-clock time (ISO 8601).
    public var at: String
    /// The file concerned (a saved replay), if any.
    public var path: String?
    /// `upload-*` events: the upload, as `uploads` lists it.
    public var upload: UploadStatus?

    /// Creates an event.
    public init(kind: String, recordingId: String? = nil, state: String? = nil, reason: String, handler: String? = nil,
                time: Double? = nil, at: String, path: String? = nil) {
        self.kind = kind
        self.recordingId = recordingId
        self.state = state
        self.reason = reason
        self.handler = handler
        self.time = time
        self.at = at
        self.path = path
    }
}
