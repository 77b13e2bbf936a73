import Foundation
import RecordKitExtensions

/// One extension of the catalog as `recordctl extensions` shows it (text, or JSON).
package struct ExtensionListing: Encodable, Sendable {
    /// Its name, as `--extension` takes it.
    package var name: String
    /// Its version, when its manifest could be read.
    package var version: String?
    /// "built-in", "user directory" or "extensions directory".
    package var origin: String
    /// Its directory (nil for built-ins).
    package var directory: String?
    /// Whether it can be used.
    package var usable: Bool
    /// Why it cannot load, when it cannot.
    package var error: String?
    /// What it wants: `raw bgr0 video`, `h264 video, app audio as aac`, ….
    package var input: String?
    /// Its setup keys and their types.
    package var setup: [String: String]?
    /// The listing as a few indented lines.
    package let text: String

    private enum CodingKeys: String, CodingKey { case name, version, origin, directory, usable, error, input, setup }

    /// Every extension the recorder can use: `builtins` (those the executable links), then those
    /// in `extensionsDirectories` and in the user's directory (``userDirectory``).
    package static func all(builtins: [BuiltinExtension], extensionsDirectories: [String]) -> [ExtensionListing] {
        ExtensionCatalog.discover(builtins: builtins, extensionsDirectories: extensionsDirectories).entries.map(ExtensionListing.init)
    }

    /// Where the user's extensions go: `$XDG_DATA_HOME/recordkit/extensions`.
    package static var userDirectory: String { ExtensionCatalog.userDirectory() }

    init(_ entry: CatalogEntry) {
        name = entry.name
        version = entry.version
        origin = entry.origin.description
        directory = entry.directory
        usable = entry.manifest != nil
        error = entry.brokenReason
        input = entry.manifest?.inputSummary
        setup = entry.manifest.map { m in Dictionary(uniqueKeysWithValues: m.setup.map { ($0.name, $0.type.rawValue) }) }
        text = Self.text(entry)
    }

    private static func text(_ entry: CatalogEntry) -> String {
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
