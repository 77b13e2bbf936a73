/// One command-line option an extension declares in its manifest (`commandLine.options`): how
/// `recordctl record`/`start` spell it, what value it takes, and how it becomes the extension's
/// request and setup. The service resolves the options a client forwards against these
/// declarations (``OptionResolver``); `recordctl record --help` lists them (``OptionHelp``); the
/// config file takes each under its name (``configKey``). Neither the service nor the command line
/// names an extension's options: the extension's folder does.
package struct OptionDeclaration: Sendable, Equatable {
    /// What using the option does to the extension's requests.
    package enum Role: String, Sendable, Equatable, CaseIterable {
        /// Each use requests the extension once (`--rtmp URL`, `--replay-buffer SECONDS`, `--preview`);
        /// the value, if any, is the request's ``OptionDeclaration/setup`` value.
        case request
        /// Sets ``OptionDeclaration/setup`` on every request of the extension (`--format`, `--preview-port`);
        /// an error when the extension is not requested.
        case setting
        /// A flag that withdraws the extension's default request (`--no-file`); an error together
        /// with any other option of the extension.
        case disable
        /// A secret read from a file (its first line) or from ``OptionDeclaration/environment``, appended
        /// as a last path component to the ``OptionDeclaration/setup`` value of each request that lacks one
        /// (`--rtmp-key-file`: the stream key kept off the command line).
        case keyFile = "key-file"
    }

    /// The type of the option's value.
    package enum ValueType: String, Sendable, Equatable, CaseIterable {
        /// No value: a switch (`--overwrite`); as a setup value, `true`.
        case flag
        /// Any text.
        case string
        /// An integer.
        case int
        /// A finite number.
        case double
        /// A file or directory: made absolute against the client's working directory.
        case path
    }

    /// The long spelling without `--`: lowercase letters, digits and `-`.
    package var name: String
    /// The one-letter spelling without `-`, if any.
    package var short: Character?
    /// What using it does.
    package var role: Role
    /// Its value's type.
    package var type: ValueType
    /// The setup key it feeds (nil: none, e.g. `--preview`, `--no-file`).
    package var setup: String?
    /// The value's name in help (`FILE`, `SECONDS`).
    package var valueName: String?
    /// One or two sentences for `--help`.
    package var help: String
    /// The smallest value allowed (``ValueType/int`` and ``ValueType/double`` only).
    package var minimum: Double?
    /// The largest value allowed (``ValueType/int`` and ``ValueType/double`` only).
    package var maximum: Double?
    /// The values allowed (``ValueType/string`` only), or nil for any.
    package var choices: [String]?
    /// Whether a ``Role/request`` option may be given several times (one request each).
    package var repeatable: Bool
    /// Whether the value is a secret (a stream key in a URL): never shown in messages.
    package var secret: Bool
    /// For ``Role/keyFile``: the client's environment variable that may hold the secret instead.
    package var environment: String?
    /// The value the option takes when it is given alone (last, or before another option):
    /// `--camera` alone is `--camera *`, the first camera. Nil: a value is required.
    package var implicitValue: String?
    /// Options (names without `--`, of any declaration) this one cannot be combined with: both
    /// given is an error; one configured gives way to the other given (`--app-audio-from`
    /// excludes `app-sink`, so a configured sink gives way to the flag's application).
    package var excludes: [String] = []

    /// Creates a declaration.
    package init(name: String, short: Character? = nil, role: Role, type: ValueType, setup: String? = nil, valueName: String? = nil,
                 help: String, minimum: Double? = nil, maximum: Double? = nil, choices: [String]? = nil, repeatable: Bool = false,
                 secret: Bool = false, environment: String? = nil, implicitValue: String? = nil) {
        self.name = name
        self.short = short
        self.role = role
        self.type = type
        self.setup = setup
        self.valueName = valueName
        self.help = help
        self.minimum = minimum
        self.maximum = maximum
        self.choices = choices
        self.repeatable = repeatable
        self.secret = secret
        self.environment = environment
        self.implicitValue = implicitValue
    }

    /// The key the config file and its profiles take this option under: its long name.
    package var configKey: String { name }

    /// Whether the option takes a value on the command line.
    package var takesValue: Bool { type != .flag }

    /// The value's name in help: `<NAME>`, or `[<NAME>]` when it may be left out.
    package var valueLabel: String {
        let name = "<\(valueName ?? type.rawValue)>"
        return implicitValue == nil ? name : "[\(name)]"
    }

    /// `--name`, or `-o, --name`.
    package var spelling: String { short.map { "-\($0), --\(name)" } ?? "--\(name)" }
}
