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

    /// Reads and checks the table.
    init(_ t: ConfigTable) throws(ConfigError) {
        try t.read(known: Self.actions, kind: "hotkey action") { key throws(ConfigError) in
            bindings[key] = try t.string(key, mustBe: "a key chord like \"Super+Alt+R\"")
        }
    }
}
