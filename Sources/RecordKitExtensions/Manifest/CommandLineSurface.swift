/// The command-line surface an extension's manifest declares (`commandLine`): its options and
/// whether a recording requests it without any (the `file` extension: unless `--no-file`).
package struct CommandLineSurface: Sendable, Equatable {
    /// Whether every recording requests the extension once unless a ``OptionDeclaration/Role/disable``
    /// option withdraws it.
    package var requestedByDefault: Bool
    /// Its options, in the order help lists them.
    package var options: [OptionDeclaration]

    /// A surface; empty: the extension is requested by `--extension NAME` only.
    package init(requestedByDefault: Bool = false, options: [OptionDeclaration] = []) {
        self.requestedByDefault = requestedByDefault
        self.options = options
    }
}
