/// What a PulseAudio server has to record from, as `recordctl audio-sources` lists it.
public struct AudioInventory: Sendable, Codable, Equatable {
    /// A playback stream (sink input) of an application.
    public struct Application: Sendable, Codable, Equatable {
        /// `application.name` (what `--app-audio-from NAME` matches), if the client set one.
        public var name: String?
        /// `application.process.id` (what `--app-audio-from PID` matches), if known.
        public var pid: Int?
        /// The sink input's index on the server.
        public var sinkInput: Int
        /// The name of the sink it plays to.
        public var sink: String?
        /// The stream's own name (`media.name`).
        public var streamName: String?
    }

    /// Applications playing now, one entry per sink input.
    public var applications: [Application] = []
    /// Sink names (`--app-sink` records a sink's monitor).
    public var sinks: [String] = []
    /// Source names, monitors included (`--mic-source`).
    public var sources: [String] = []
}
