/// Where an extension was found.
package enum ExtensionOrigin: Sendable, Equatable, CustomStringConvertible {
    /// Built into recordctl and recordd (runs in-process).
    case builtIn
    /// The user's extension directory, `$XDG_DATA_HOME/recordkit/extensions/`.
    case userDirectory
    /// A directory given with `--extensions-dir`.
    case extensionsDirectory

    package var description: String {
        switch self {
        case .builtIn: return "built-in"
        case .userDirectory: return "user"
        case .extensionsDirectory: return "--extensions-dir"
        }
    }
}
