import TOMLKit

/// The config file's `[hooks]` table (docs/recordctl/hooks.md):
///
/// ```toml
/// [hooks]
/// on-saved = "notify-send 'saved' \"$1\""   # or a list of commands
/// timeout = 30                              # seconds each command may run (default 60)
/// ```
package struct HookSettings: Sendable, Equatable {
    /// Shell commands run after each recording, split part and replay clip is final.
    package var onSaved: [String] = []
    /// Seconds each command may run, or nil for the built-in default.
    package var timeout: Double?

    /// No hooks.
    package init() {}

    /// Reads and checks the table; `line` gives the line of a key, for messages.
    init(_ table: TOMLTable, path: String, line: (String) -> Int) throws(ConfigError) {
        for key in table.keys {
            switch key {
            case "on-saved":
                if let one = table[key]?.string {
                    onSaved = [one]
                } else if let list = table[key]?.array {
                    var commands: [String] = []
                    for item in list {
                        guard let s = item.string else {
                            throw ConfigError("\(path), line \(line(key)): hooks.on-saved must be a command (a string) or a list of commands")
                        }
                        commands.append(s)
                    }
                    onSaved = commands
                } else {
                    throw ConfigError("\(path), line \(line(key)): hooks.on-saved must be a command (a string) or a list of commands")
                }
            case "timeout":
                let seconds = table[key]?.double ?? table[key]?.int.map(Double.init)
                guard let seconds, seconds > 0, seconds <= 86_400 else {
                    throw ConfigError("\(path), line \(line(key)): hooks.timeout must be seconds, more than 0 and at most 86400")
                }
                timeout = seconds
            default:
                throw ConfigError("\(path), line \(line(key)): unknown key \"\(key)\" in [hooks]; known: on-saved, timeout")
            }
        }
    }
}
