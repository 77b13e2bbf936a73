/// How the window to capture is named on the command line or in setup info.
package enum WindowSelector: Sendable, Equatable {
    /// An X window id, e.g. from `xwininfo` or `xdotool`.
    case id(UInt)
    /// A window title: an exact, case-sensitive match of `_NET_WM_NAME` (UTF-8) or `WM_NAME`.
    case name(String)

    /// Reads `0x3a00007` (hexadecimal with a `0x` prefix) or an all-digit decimal as a window id,
    /// and anything else (including text that looks numeric but does not fit an id) as a title.
    package static func parse(_ text: String) -> WindowSelector {
        let lowered = text.lowercased()
        if lowered.hasPrefix("0x"), lowered.count > 2, lowered.count <= 18,
           let id = UInt(lowered.dropFirst(2), radix: 16) {
            return .id(id)
        }
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let id = UInt(text) {
            return .id(id)
        }
        return .name(text)
    }
}
