/// What `status` reports.
public struct ServiceStatus: Codable, Sendable {
    /// The service itself.
    public struct Service: Codable, Sendable {
        /// Its process id.
        public var pid: Int32
        /// Its protocol version.
        public var version: Int
        /// Its socket.
        public var socket: String

        /// Describes the service.
        public init(pid: Int32, version: Int, socket: String) {
            self.pid = pid
            self.version = version
            self.socket = socket
        }
    }
    /// The recording in progress.
    public struct Recording: Codable, Sendable {
        /// The recording's id.
        public var id: String
        /// Lifecycle state.
        public var state: String
        /// Why it is paused, when it is.
        public var pauseReason: String?
        /// Where the file goes at stop (the first handler's published `path`).
        public var destination: String?
        /// The recorder's own report (times, capture counters, handlers).
        public var recorder: RecorderStatus

        /// Describes the recording in progress.
        public init(id: String, state: String, pauseReason: String?, destination: String?, recorder: RecorderStatus) {
            self.id = id
            self.state = state
            self.pauseReason = pauseReason
            self.destination = destination
            self.recorder = recorder
        }
    }
    /// A recording that ended.
    public struct Ended: Codable, Sendable {
        /// The recording's id.
        public var id: String
        /// finished, discarded or failed.
        public var state: String
        /// Its results.
        public var outputs: [String]
        /// Why it ended.
        public var reason: String?
        /// What went wrong in it (a handler's error; files kept in the session directory).
        public var errors: [String]?

        /// Describes a recording that ended.
        public init(id: String, state: String, outputs: [String], reason: String?, errors: [String]?) {
            self.id = id
            self.state = state
            self.outputs = outputs
            self.reason = reason
            self.errors = errors
        }
    }
    /// The service.
    public var service: Service
    /// The recording in progress, if any.
    public var recording: Recording?
    /// The last recording that ended, if any.
    public var last: Ended?
    /// Recordings recovered after a crash, kill or power loss.
    public var recovered: [RecoveredSession]
    /// Whether a recording can start now (the display and audio server the service would use), as last probed.
    public var availability: Availability?

    /// Creates a report.
    public init(service: Service, recording: Recording?, last: Ended?, recovered: [RecoveredSession], availability: Availability? = nil) {
        self.service = service
        self.recording = recording
        self.last = last
        self.recovered = recovered
        self.availability = availability
    }
}
