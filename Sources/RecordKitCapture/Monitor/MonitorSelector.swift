/// How the monitor to capture is named on the command line (`--monitor NAME|INDEX`).
package enum MonitorSelector: Sendable, Equatable, CustomStringConvertible {
    /// Position in the RandR monitor list (`recordctl monitors`, `xrandr --listmonitors`), from 0.
    case index(Int)
    /// The monitor's RandR name, exactly (e.g. `DP-1`, or a virtual monitor's name).
    case name(String)

    /// An all-digit text is an index, anything else a name.
    package static func parse(_ text: String) -> MonitorSelector {
        if !text.isEmpty, text.count <= 4, text.allSatisfy({ $0.isASCII && $0.isNumber }), let index = Int(text) {
            return .index(index)
        }
        return .name(text)
    }

    /// `monitor 1` or `monitor 'DP-1'`.
    package var description: String {
        switch self {
        case .index(let index): "monitor \(index)"
        case .name(let name): "monitor '\(name)'"
        }
    }
}
