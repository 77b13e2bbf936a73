import ArgumentParser
import Foundation
import RecordKitExtensions
import RecordKitService

/// `recordctl extensions`: every extension, where it comes from, and why a broken one cannot load.
struct ExtensionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extensions",
        abstract: "List the upload extensions: name, version, input, origin; say why a broken one cannot load.",
        discussion: "Built-in extensions come with recordctl; others are directories with a manifest.json in $XDG_DATA_HOME/recordkit/extensions (else ~/.local/share/recordkit/extensions) or in an --extensions-dir. See docs/EXTENSIONS.md.")

    @Option(name: .customLong("extensions-dir"),
            help: ArgumentHelp("Also look for extensions here (repeatable).", valueName: "DIR"))
    var extensionsDirs: [String] = []

    @Flag(help: "Print the list as JSON.")
    var json = false

    func run() throws {
        let dirs = extensionsDirs.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
        let catalog = BuiltinExtensions.catalog(extensionsDirectories: dirs)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Console.out(String(decoding: try encoder.encode(catalog.entries.map(ExtensionListing.init)), as: UTF8.self))
            return
        }
        Console.out("user extensions: \(ExtensionCatalog.userDirectory())")
        for entry in catalog.entries { Console.out(Self.text(entry)) }
    }

    /// One extension as a few indented lines.
    static func text(_ entry: CatalogEntry) -> String {
        var head = entry.name
        if let version = entry.version { head += " " + version }
        switch entry.origin {
        case .builtIn: head += " (built-in, in-process)"
        case .userDirectory, .extensionsDirectory: head += " (\(entry.origin): \(entry.directory ?? "?"))"
        }
        var lines = [head]
        switch entry.state {
        case .broken(let reason):
            lines.append("  cannot load: \(reason)")
        case .usable(let manifest, _):
            if let summary = manifest.summary { lines.append("  \(summary)") }
            lines.append("  input: \(manifest.inputSummary)")
            if !manifest.setup.isEmpty {
                let keys = manifest.setup.map { key in
                    "\(key.name) (\(key.type.rawValue)" + (key.isRequired ? ", required" : "")
                        + (key.defaultValue.map { ", default \"\($0)\"" } ?? "") + ")"
                }
                lines.append("  setup: " + keys.joined(separator: ", "))
            }
            if case .executable = manifest.entry {
                let l = manifest.limits
                lines.append("  limits: \(l.memoryMB) MB, \(l.callTimeoutMs) ms per call, \(l.lifecycleTimeoutMs) ms to start or finish")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// One extension in `recordctl extensions --json`.
struct ExtensionListing: Encodable {
    var name: String
    var version: String?
    var origin: String
    var directory: String?
    var usable: Bool
    var error: String?
    var input: String?
    var setup: [String: String]?

    init(_ entry: CatalogEntry) {
        name = entry.name
        version = entry.version
        origin = entry.origin.description
        directory = entry.directory
        usable = entry.manifest != nil
        error = entry.brokenReason
        input = entry.manifest?.inputSummary
        setup = entry.manifest.map { m in Dictionary(uniqueKeysWithValues: m.setup.map { ($0.name, $0.type.rawValue) }) }
    }
}
