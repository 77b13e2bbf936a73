import RecordKit

/// An extension's manifest (`manifest.json`): who it is, how it runs, what input it wants, which
/// setup keys it takes and the limits it runs under. docs/EXTENSIONS.md describes the format and
/// docs/extension-manifest.schema.json is its JSON Schema.
public struct ExtensionManifest: Sendable, Equatable {
    /// How an extension runs.
    public enum Entry: Sendable, Equatable {
        /// A Swift target of this package, run inside the recorder (built-in extensions only).
        case swiftTarget(String)
        /// An executable file, relative to the extension's directory, run in its own process.
        case executable(String)
    }

    /// The name users pass to `--extension`: lowercase letters, digits and `-`, starting with a letter.
    public var name: String
    /// The extension's version (`MAJOR.MINOR.PATCH`, optionally `-suffix`).
    public var version: String
    /// One line about what the extension does.
    public var summary: String?
    /// How it runs.
    public var entry: Entry
    /// The input it wants; the recorder encodes once per distinct setting.
    public var input: HandlerInput
    /// Its setup keys, sorted by name.
    public var setup: [SetupKey]
    /// Its limits (enforced for executables).
    public var limits: ExtensionLimits

    /// Creates a manifest.
    public init(name: String, version: String, summary: String? = nil, entry: Entry, input: HandlerInput,
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
    public func setupKey(_ name: String) -> SetupKey? { setup.first { $0.name == name } }

    /// A short summary of ``input``: `raw bgr0 video, app audio as PCM`.
    public var inputSummary: String { input.summary }
}
