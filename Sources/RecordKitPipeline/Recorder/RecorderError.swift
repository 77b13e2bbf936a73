/// Why a recording could not start or failed; `kind` maps to a documented exit code.
package struct RecorderError: Error, Sendable, CustomStringConvertible {
    /// Categories of failure.
    package enum Kind: String, Sendable, Codable {
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
    package var kind: Kind
    /// What failed, with what input, and what to do.
    package var message: String

    /// Creates an error.
    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }
}
