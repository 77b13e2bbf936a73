/// Which application's sound to record (`--app-audio-from NAME|PID`): its PulseAudio sink
/// inputs (playback streams), matched on their `application.name` or `application.process.id`.
package enum ApplicationSelector: Sendable, Equatable, CustomStringConvertible {
    /// The process id (`application.process.id`).
    case pid(Int)
    /// The application name, exactly (`application.name`, what `recordctl audio-sources` shows).
    case name(String)

    /// An all-digit text is a pid, anything else a name.
    package static func parse(_ text: String) -> ApplicationSelector {
        if !text.isEmpty, text.count <= 10, text.allSatisfy({ $0.isASCII && $0.isNumber }), let pid = Int(text) {
            return .pid(pid)
        }
        return .name(text)
    }

    /// Whether a stream with this application name and pid belongs to the selected application.
    package func matches(name: String?, pid: Int?) -> Bool {
        switch self {
        case .pid(let wanted): pid == wanted
        case .name(let wanted): name == wanted
        }
    }

    /// `application 'NAME'` or `process PID`.
    package var description: String {
        switch self {
        case .pid(let pid): "process \(pid)"
        case .name(let name): "application '\(name)'"
        }
    }
}
