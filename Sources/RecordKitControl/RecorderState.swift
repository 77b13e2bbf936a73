/// The lifecycle of a recording (docs/ARCHITECTURE.md, "Lifecycle"): `idle → starting → recording ⇄ paused →
/// finishing → finished | discarded | failed`.
package enum RecorderState: String, Sendable, Codable {
    /// Not started.
    case idle
    /// Opening capture sources, encoders and handlers.
    case starting
    /// Capturing and delivering.
    case recording
    /// Capturing nothing; broadcast time stands still.
    case paused
    /// Draining encoders and finalizing handlers.
    case finishing
    /// Ended normally; results are where handlers said.
    case finished
    /// Ended by discard; every artifact was deleted.
    case discarded
    /// Ended because of an error (every handler failed, or capture broke).
    case failed

    /// Whether the recording has ended.
    package var isTerminal: Bool { self == .finished || self == .discarded || self == .failed }
}
