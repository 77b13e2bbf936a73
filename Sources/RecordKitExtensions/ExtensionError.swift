/// Why an extension cannot be used for a recording; every case is the user's to fix, so the
/// command line reports it as a usage error (exit code 64) before recording starts.
package struct ExtensionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem.
    package enum Kind: String, Sendable, Equatable {
        /// No extension of that name is installed.
        case unknownExtension
        /// The extension is installed but cannot load (its manifest or executable is broken).
        case brokenExtension
        /// A setup value of the wrong type, an unknown key, a missing required key, or a
        /// malformed `--setup` argument.
        case invalidSetup
    }
    /// The kind.
    package var kind: Kind
    /// What is wrong and what to do.
    package var message: String

    /// Creates an error.
    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }
}
