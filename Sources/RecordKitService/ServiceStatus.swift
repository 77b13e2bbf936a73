import RecordKitPipeline

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
    }
    /// The service.
    public var service: Service
    /// The recording in progress, if any.
    public var recording: Recording?
    /// The last recording that ended, if any.
    public var last: Ended?
    /// Recordings recovered after a crash, kill or power loss.
    public var recovered: [RecoveredSession]
}
