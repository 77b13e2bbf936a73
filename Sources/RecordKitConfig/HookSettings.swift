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

    /// Reads and checks the table.
    init(_ t: ConfigTable) throws(ConfigError) {
        try t.read(known: ["on-saved", "timeout"]) { key throws(ConfigError) in
            switch key {
            case "on-saved": onSaved = try t.strings(key, mustBe: "a command (a string) or a list of commands")
            default: timeout = try t.double(key, in: Double.leastNonzeroMagnitude...86_400, mustBe: "seconds, more than 0 and at most 86400")
            }
        }
    }
}
