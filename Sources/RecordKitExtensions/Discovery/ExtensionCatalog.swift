import Foundation

/// Every extension the recorder can use: the built-in ones, then those installed in the user's
/// extension directory and in `--extensions-dir` directories, each usable or broken with the
/// reason it cannot load.
///
/// Names are unique: built-in names are reserved, a `--extensions-dir` extension shadows a
/// user-installed one of the same name (which is then listed as broken, saying so), and within
/// one directory the first (alphabetically) wins.
package struct ExtensionCatalog: Sendable {
    /// Every extension found, built-in ones first, then by origin and directory.
    package let entries: [CatalogEntry]
    /// The built-in extensions, for making their handlers.
    let builtins: [String: BuiltinExtension]

    /// Looks for extensions: `builtins`, each directory of `extensionsDirectories` (a directory
    /// that holds extension directories, or one that is an extension itself), and the user's
    /// directory `$XDG_DATA_HOME/recordkit/extensions` (`~/.local/share/…` by default).
    package static func discover(builtins: [BuiltinExtension], extensionsDirectories: [String] = [],
                                environment: [String: String] = ProcessInfo.processInfo.environment) -> ExtensionCatalog {
        var entries: [CatalogEntry] = []
        var builtinsByName: [String: BuiltinExtension] = [:]
        for builtin in builtins {
            switch builtin.manifest {
            case .success(let m):
                if case .swiftTarget(let t) = m.entry, t == builtin.target {
                    entries.append(CatalogEntry(name: m.name, version: m.version, origin: .builtIn, directory: nil, state: .usable(m, executable: nil)))
                    builtinsByName[m.name] = builtin
                } else {
                    entries.append(CatalogEntry(name: m.name, version: m.version, origin: .builtIn, directory: nil,
                                                state: .broken(reason: "its manifest's entry does not name its Swift target \(builtin.target)")))
                }
            case .failure(let e):
                entries.append(CatalogEntry(name: builtin.target, version: nil, origin: .builtIn, directory: nil, state: .broken(reason: e.description)))
            }
        }
        var taken: [String: String] = [:]  // name → where the winner is
        for entry in entries { taken[entry.name] = "the built-in extension" }
        let searched = extensionsDirectories.map { ($0, ExtensionOrigin.extensionsDirectory) } + [(userDirectory(environment: environment), .userDirectory)]
        for (root, origin) in searched {
            for directory in extensionDirectories(in: root) {
                var entry = ExtensionDirectoryLoader.load(directory, origin: origin)
                if let winner = taken[entry.name] {
                    entry.state = .broken(reason: "another extension named '\(entry.name)' is used instead: \(winner)")
                } else {
                    taken[entry.name] = directory
                }
                entries.append(entry)
            }
        }
        return ExtensionCatalog(entries: entries, builtins: builtinsByName)
    }

    /// `$XDG_DATA_HOME/recordkit/extensions`, or `~/.local/share/recordkit/extensions`.
    package static func userDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return data + "/recordkit/extensions"
    }

    /// The extension directories under `root`: `root` itself when it has a manifest, else its
    /// subdirectories (hidden ones skipped), sorted. A missing `root` has none.
    static func extensionDirectories(in root: String) -> [String] {
        let root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        if ExtensionDirectoryLoader.isExtensionDirectory(root) { return [root] }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        return names.sorted().filter { !$0.hasPrefix(".") }.map { root + "/" + $0 }.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }

    /// The extension called `name`, usable or broken, if any. Entries are in precedence
    /// order, so a shadowed one is never returned.
    package func entry(named name: String) -> CatalogEntry? {
        entries.first { $0.name == name }
    }

    /// Names of the usable extensions, sorted.
    package var usableNames: [String] { entries.filter { $0.manifest != nil }.map(\.name).sorted() }
}
