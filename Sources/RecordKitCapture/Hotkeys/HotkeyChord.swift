import CX11

/// A key chord as the config file writes it (`Super+Alt+R`, `Ctrl+Shift+F9`): modifiers and one
/// key, case-insensitive modifier names (`Super`/`Mod4`/`Win`, `Alt`/`Mod1`, `Ctrl`/`Control`,
/// `Shift`), the key by its X keysym name (`R`, `F9`, `space`, `Print`).
package struct HotkeyChord: Sendable, Equatable, CustomStringConvertible {
    /// X modifier mask bits (`ShiftMask`, `ControlMask`, `Mod1Mask`, `Mod4Mask`).
    package let modifiers: UInt32
    /// The key's keysym name, as given.
    package let key: String
    package let description: String

    /// Parses `text`; nil with no key, an unknown modifier or an empty part.
    package init?(_ text: String) {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false).map { HotkeyChord.trimmed($0) }
        guard let key = parts.last, !key.isEmpty, !parts.contains(where: { $0.isEmpty }) else { return nil }
        var mask: UInt32 = 0
        for name in parts.dropLast() {
            switch name.lowercased() {
            case "super", "mod4", "win", "meta": mask |= UInt32(Mod4Mask)
            case "alt", "mod1": mask |= UInt32(Mod1Mask)
            case "ctrl", "control": mask |= UInt32(ControlMask)
            case "shift": mask |= UInt32(ShiftMask)
            default: return nil
            }
        }
        modifiers = mask
        self.key = key
        description = text
    }
}

extension HotkeyChord {
    /// `part` without surrounding blanks.
    static func trimmed(_ part: Substring) -> String {
        var s = part
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
