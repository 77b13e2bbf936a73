/// Whether a recording can start now, and why not (ReplayKit's `isAvailable` and
/// `screenRecorderDidChangeAvailability`): reported by `status` at any time, idle included, and
/// as an `availability-changed` event when it changes.
package struct Availability: Codable, Sendable, Equatable {
    /// One server the recording needs.
    package struct Server: Codable, Sendable, Equatable {
        /// What the service would use: the display name (`:0`) or the audio server's address.
        package var name: String
        /// Whether it answered the last probe.
        package var reachable: Bool
        /// Why it is or is not reachable, for people ("X server :0 answers", "no socket at …").
        package var reason: String

        /// Describes a server.
        package init(name: String, reachable: Bool, reason: String) {
            self.name = name
            self.reachable = reachable
            self.reason = reason
        }
    }
    /// Whether a recording can start: the display answers (audio is optional: without an audio
    /// server a recording has video only, unless `--require-audio`).
    package var available: Bool
    /// One sentence: "recording possible", or why not.
    package var reason: String
    /// The X display.
    package var display: Server
    /// The PulseAudio (or PipeWire's PulseAudio) server.
    package var audio: Server

    /// Derives ``available`` and ``reason`` from the two servers.
    package init(display: Server, audio: Server) {
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
