/// What `status` reports.
package struct ServiceStatus: Codable, Sendable {
    /// The service itself.
    package struct Service: Codable, Sendable {
        /// Its process id.
        package var pid: Int32
        /// Its protocol version.
        package var version: Int
        /// Its socket.
        package var socket: String

        /// Describes the service.
        package init(pid: Int32, version: Int, socket: String) {
            self.pid = pid
            self.version = version
            self.socket = socket
        }
    }
    /// The recording in progress.
    package struct Recording: Codable, Sendable {
        /// The recording's id.
        package var id: String
        /// Lifecycle state.
        package var state: String
        /// Why it is paused, when it is.
        package var pauseReason: String?
        /// Where the file goes at stop (the first handler's published `path`).
        package var destination: String?
        /// The recorder's own report (times, capture counters, handlers).
        package var recorder: RecorderStatus

        /// Describes the recording in progress.
        package init(id: String, state: String, pauseReason: String?, destination: String?, recorder: RecorderStatus) {
            self.id = id
            self.state = state
            self.pauseReason = pauseReason
            self.destination = destination
            self.recorder = recorder
        }
    }
    /// A recording that ended.
    package struct Ended: Codable, Sendable {
        /// The recording's id.
        package var id: String
        /// finished, discarded or failed.
        package var state: String
        /// Its results.
        package var outputs: [String]
        /// Why it ended.
        package var reason: String?
        /// What went wrong in it (a handler's error; files kept in the session directory).
        package var errors: [String]?

        /// Describes a recording that ended.
        package init(id: String, state: String, outputs: [String], reason: String?, errors: [String]?) {
            self.id = id
            self.state = state
            self.outputs = outputs
            self.reason = reason
            self.errors = errors
        }
    }
    /// The service.
    package var service: Service
    /// The recording in progress, if any.
    package var recording: Recording?
    /// The last recording that ended, if any.
    package var last: Ended?
    /// Recordings recovered after a crash, kill or power loss.
    package var recovered: [RecoveredSession]
    /// Whether a recording can start now (the display and audio server the service would use), as last probed.
    package var availability: Availability?

    /// Creates a report.
    package init(service: Service, recording: Recording?, last: Ended?, recovered: [RecoveredSession], availability: Availability? = nil) {
        self.service = service
        self.recording = recording
        self.last = last
        self.recovered = recovered
        self.availability = availability
    }
}
