import RecordKit

/// An extension's manifest (`manifest.json`): who it is, how it runs, what input it wants, which
/// setup keys it takes and the limits it runs under. docs/EXTENSIONS.md describes the format and
/// docs/extension-manifest.schema.json is its JSON Schema.
package struct ExtensionManifest: Sendable, Equatable {
    /// How an extension runs.
    package enum Entry: Sendable, Equatable {
        /// A Swift target of this package, run inside the recorder (built-in extensions only).
        case swiftTarget(String)
        /// An executable file, relative to the extension's directory, run in its own process.
        case executable(String)
    }

    /// The name users pass to `--extension`: lowercase letters, digits and `-`, starting with a letter.
    package var name: String
    /// The extension's version (`MAJOR.MINOR.PATCH`, optionally `-suffix`).
    package var version: String
    /// One line about what the extension does.
    package var summary: String?
    /// How it runs.
    package var entry: Entry
    /// The input it wants; the recorder encodes once per distinct setting.
    package var input: HandlerInput
    /// Its setup keys, sorted by name.
    package var setup: [SetupKey]
    /// Its limits (enforced for executables).
    package var limits: ExtensionLimits
    /// The `recordctl record`/`start` options and config keys that request and set it up.
    package var commandLine = CommandLineSurface()

    /// Creates a manifest.
    package init(name: String, version: String, summary: String? = nil, entry: Entry, input: HandlerInput,
                setup: [SetupKey] = [], limits: ExtensionLimits = ExtensionLimits()) {
        self.name = name
        self.version = version
        self.summary = summary
        self.entry = entry
        self.input = input
        self.setup = setup.sorted { $0.name < $1.name }
        self.limits = limits
    }

    /// The setup key called `name`, if declared.
    package func setupKey(_ name: String) -> SetupKey? { setup.first { $0.name == name } }

    /// A short summary of ``input``: `raw bgr0 video, app audio as PCM`.
    package var inputSummary: String { input.summary }
}
