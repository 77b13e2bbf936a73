import TOMLKit

/// The config file's `[hotkeys]` table (docs/recordctl/hotkeys.md): an action and the chord
/// that triggers it, grabbed by `recordd` on X11.
///
/// ```toml
/// [hotkeys]
/// save-replay = "Super+Alt+R"
/// toggle-record = "Super+Alt+F9"
/// ```
package struct HotkeySettings: Sendable, Equatable {
    /// The actions a hotkey can trigger.
    package static let actions = ["save-replay", "toggle-record", "toggle-pause", "mark", "mic-toggle"]
    /// Chord text by action (checked by the grabber, which knows the keyboard).
    package var bindings: [String: String] = [:]

    /// No hotkeys.
    package init() {}

    /// Reads and checks the table; `line` gives the line of a key, for messages.
    init(_ table: TOMLTable, path: String, line: (String) -> Int) throws(ConfigError) {
        for key in table.keys {
            guard Self.actions.contains(key) else {
                throw ConfigError("\(path), line \(line(key)): unknown hotkey action \"\(key)\" in [hotkeys]; known: " + Self.actions.joined(separator: ", "))
            }
            guard let chord = table[key]?.string, !chord.isEmpty else {
                throw ConfigError("\(path), line \(line(key)): hotkeys.\(key) must be a key chord like \"Super+Alt+R\"")
            }
            bindings[key] = chord
        }
    }
}
