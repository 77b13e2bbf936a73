/// One extension the catalog found: usable, or broken with the reason it cannot load.
package struct CatalogEntry: Sendable {
    /// Whether the extension can be used.
    package enum State: Sendable {
        /// Ready: its manifest, and its executable's absolute path (nil for built-ins).
        case usable(ExtensionManifest, executable: String?)
        /// Cannot load, and why (what to fix).
        case broken(reason: String)
    }

    /// The manifest's name, or the directory's name when the manifest does not say.
    package var name: String
    /// The manifest's version, when it could be read.
    package var version: String?
    /// Where it was found.
    package var origin: ExtensionOrigin
    /// Its directory (nil for built-ins).
    package var directory: String?
    /// Usable or broken.
    package var state: State

    /// The manifest of a usable extension.
    package var manifest: ExtensionManifest? {
        if case .usable(let m, _) = state { return m }
        return nil
    }

    /// Why a broken extension cannot load.
    package var brokenReason: String? {
        if case .broken(let reason) = state { return reason }
        return nil
    }
}
