/// Why a recording could not start or failed; `kind` maps to a documented exit code.
public struct RecorderError: Error, Sendable, CustomStringConvertible {
    /// Categories of failure.
    public enum Kind: String, Sendable, Codable {
        /// Malformed arguments (a region that does not parse, a setup value of the wrong type).
        case badArgument
        /// The X display, the audio server or the window is not there.
        case unavailable
        /// The output cannot be created (unwritable path, existing file).
        case cannotCreateOutput
        /// The operation does not fit the state (pause while idle…).
        case invalidState
        /// Something broke while recording.
        case failed
    }
    /// The category.
    public var kind: Kind
    /// What failed, with what input, and what to do.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
