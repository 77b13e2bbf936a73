/// A manifest that cannot be used: which file, and what is wrong with it (a JSON syntax error
/// with line and column, or a member that breaks the schema, by its path).
package struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The manifest file, or a label such as `built-in manifest of 'file'`.
    package var file: String
    /// What is wrong.
    package var message: String

    /// Creates an error.
    package init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    package var description: String { "\(file): \(message)" }
}
