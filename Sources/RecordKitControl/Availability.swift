/// Whether a recording can start now, and why not (ReplayKit's `isAvailable` and
/// `screenRecorderDidChangeAvailability`): reported by `status` at any time, idle included, and
/// as an `availability-changed` event when it changes.
public struct Availability: Codable, Sendable, Equatable {
    /// One server the recording needs.
    public struct Server: Codable, Sendable, Equatable {
        /// What the service would use: the display name (`:0`) or the audio server's address.
        public var name: String
        /// Whether it answered the last probe.
        public var reachable: Bool
        /// Why it is or is not reachable, for people ("X server :0 answers", "no socket at …").
        public var reason: String

        /// Describes a server.
        public init(name: String, reachable: Bool, reason: String) {
            self.name = name
            self.reachable = reachable
            self.reason = reason
        }
    }
    /// Whether a recording can start: the display answers (audio is optional: without an audio
    /// server a recording has video only, unless `--require-audio`).
    public var available: Bool
    /// One sentence: "recording possible", or why not.
    public var reason: String
    /// The X display.
    public var display: Server
    /// The PulseAudio (or PipeWire's PulseAudio) server.
    public var audio: Server

    /// Derives ``available`` and ``reason`` from the two servers.
    public init(display: Server, audio: Server) {
        self.display = display
        self.audio = audio
        available = display.reachable
        if !display.reachable {
            reason = "recording is not possible: \(display.reason)"
        } else if !audio.reachable {
            reason = "recording is possible, video only: \(audio.reason)"
        } else {
            reason = "recording is possible: \(display.reason); \(audio.reason)"
        }
    }
}
