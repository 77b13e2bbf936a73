/// One output option set in the config file or a profile (`rtmp = "rtmp://…"`, `replay-buffer = 60`,
/// `format = "mkv"`): the option's name as its extension declares it, the value as the file typed it,
/// and where it was written, so that a wrong name or type is reported with its line. The service
/// checks it against the extensions' declarations like a command-line option, which replaces it.
package struct ConfiguredOption: Codable, Sendable, Equatable {
    /// A value as TOML typed it.
    package enum Value: Codable, Sendable, Equatable {
        case string(String)
        case integer(Int)
        case number(Double)
        case bool(Bool)
        case list([Value])

        /// The value as command-line text (nil for a list or a switch).
        package var text: String? {
            switch self {
            case .string(let s): return s
            case .integer(let i): return String(i)
            case .number(let d): return String(d)
            case .bool, .list: return nil
            }
        }

        /// How the value reads in messages: "a string", "true or false", …
        package var kind: String {
            switch self {
            case .string: return "a string"
            case .integer: return "an integer"
            case .number: return "a number"
            case .bool: return "true or false"
            case .list: return "a list"
            }
        }
    }

    /// The option's name without `--` (the config key).
    package var name: String
    /// Its value.
    package var value: Value
    /// Where it was written: `/home/a/.config/recordkit/config.toml, line 4` or `…, profile streaming, line 9`.
    package var origin: String

    /// An option set at `origin`.
    package init(name: String, value: Value, origin: String) {
        self.name = name
        self.value = value
        self.origin = origin
    }
}
