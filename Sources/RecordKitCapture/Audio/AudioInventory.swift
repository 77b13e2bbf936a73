/// What a PulseAudio server has to record from, as `recordctl audio-sources` lists it.
package struct AudioInventory: Sendable, Codable, Equatable {
    /// A playback stream (sink input) of an application.
    package struct Application: Sendable, Codable, Equatable {
        /// `application.name` (what `--app-audio-from NAME` matches), if the client set one.
        package var name: String?
        /// `application.process.id` (what `--app-audio-from PID` matches), if known.
        package var pid: Int?
        /// The sink input's index on the server.
        package var sinkInput: Int
        /// The name of the sink it plays to.
        package var sink: String?
        /// The stream's own name (`media.name`).
        package var streamName: String?
    }

    /// Applications playing now, one entry per sink input.
    package var applications: [Application] = []
    /// Sink names (`--app-sink` records a sink's monitor).
    package var sinks: [String] = []
    /// Source names, monitors included (`--mic-source`).
    package var sources: [String] = []
}
