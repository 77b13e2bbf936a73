/// A manifest that cannot be used: which file, and what is wrong with it (a JSON syntax error
/// with line and column, or a member that breaks the schema, by its path).
public struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The manifest file, or a label such as `built-in manifest of 'file'`.
    public var file: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}
