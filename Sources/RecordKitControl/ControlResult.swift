/// The result of a successful request; which fields are set depends on the command.
package struct ControlResult: Codable, Sendable {
    /// `hello`: the service's process id.
    package var pid: Int32?
    /// `hello`: the service's protocol version.
    package var version: Int?
    /// `start`: the new recording's id.
    package var recordingId: String?
    /// `pause`, `resume`, `stop`, `discard`: the state afterwards.
    package var state: String?
    /// `stop`: where each handler's result is (file paths, endpoints with the key masked).
    package var outputs: [String]?
    /// `start` that joined a running capture: the ids (status names) of the outputs it attached;
    /// `recordingId` is then the running recording's.
    package var attached: [String]?
    /// `stop`: `"handler (url): error"` for each handler that failed (an endpoint that gave up).
    package var failures: [String]?
    /// `discard`: every artifact deleted.
    package var removed: [String]?
    /// `status`: the report.
    package var status: ServiceStatus?
    /// Anything the service wants the user to know (warnings on start).
    package var warnings: [String]?
    /// `save-replay`: the clip written (absolute path).
    package var path: String?
    /// `save-replay`: the clip's length in seconds.
    package var seconds: Double?
    /// `mark`: the marker's broadcast time in seconds.
    package var time: Double?
    /// `upload`, `uploads`, `upload-*`, `save-replay --upload`: the uploads concerned.
    package var uploads: [UploadStatus]?

    /// An empty result.
    package init() {}
}

/// One event of the service, streamed to `events` subscribers.
package struct ServiceEvent: Codable, Sendable {
    /// "state", "handler", "recovered", "service".
    package var kind: String
    /// The recording concerned, if any.
    package var recordingId: String?
    /// The state the recording is in.
    package var state: String?
    /// Why.
    package var reason: String
    /// The handler concerned, for handler events.
    package var handler: String?
    /// Broadcast time of the event, in seconds.
    package var time: Double?
    /// Wall-clock time (ISO 8601).
    package var at: String
    /// The file concerned (a saved replay), if any.
    package var path: String?
    /// `upload-*` events: the upload, as `uploads` lists it.
    package var upload: UploadStatus?

    /// Creates an event.
    package init(kind: String, recordingId: String? = nil, state: String? = nil, reason: String, handler: String? = nil,
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
