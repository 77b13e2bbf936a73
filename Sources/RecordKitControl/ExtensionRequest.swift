/// One `--extension NAME` of a recording, with its `--setup key=value` pairs (unvalidated: the
/// extension's manifest checks them before recording starts).
package struct ExtensionRequest: Codable, Sendable, Equatable {
    /// The extension's name, as its manifest gives it.
    package var name: String
    /// The setup values the user gave, as text.
    package var setup: [String: String]

    /// Creates a request.
    package init(name: String, setup: [String: String] = [:]) {
        self.name = name
        self.setup = setup
    }
}
