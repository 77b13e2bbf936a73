import ArgumentParser
import Foundation

/// `recordctl extensions`: every extension, where it comes from, and why a broken one cannot load.
struct ExtensionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extensions",
        abstract: "List the upload extensions: name, version, input, origin; say why a broken one cannot load.",
        discussion: "Built-in extensions come with recordctl; others are directories with a manifest.json in $XDG_DATA_HOME/recordkit/extensions (else ~/.local/share/recordkit/extensions) or in an --extensions-dir. See docs/EXTENSIONS.md and docs/recordctl.md.")

    @Option(name: .customLong("extensions-dir"),
            help: ArgumentHelp("Also look for extensions here (repeatable).", valueName: "DIR"))
    var extensionsDirs: [String] = []

    @Flag(help: "Print the list as JSON.")
    var json = false

    /// Lists in recordctl-engine (this process becomes it), which holds the built-in catalog.
    func run() throws {
        try EngineHandoff.exec(.extensions(directories: extensionsDirs.map(absolutePath), json: json))
    }
}

/// `path` made absolute against the current directory (the service runs elsewhere).
func absolutePath(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
}
