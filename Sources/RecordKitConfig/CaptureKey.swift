import Foundation
import RecordKitControl

/// The `record`/`start` options that are recordctl's own (the frame rate, the background pause, hooks): the
/// keys the config file's top level and each profile take under the option's own name. The
/// outputs' keys (`output`, `rtmp`, `replay-buffer`, …) and the capture sources' (`camera`,
/// `region`, `no-mic`, …) are declared by their extensions and sources and checked against
/// their declarations (docs/CONFIG.md).
package enum CaptureKey: String, CaseIterable, Sendable {
    case fps
    case pauseOnBackground = "pause-on-background"
    case onSaved = "on-saved"
    case hookTimeout = "hook-timeout"
    case extensionsDir = "extensions-dir"

    /// What the value must be, for messages and docs/CONFIG.md.
    package var expected: String {
        switch self {
        case .fps: return "frames per second, a whole number from 1 to 120"
        case .pauseOnBackground: return "\"hidden\", \"unfocused\" or \"never\""
        case .onSaved: return "a command (a string) or a list of commands"
        case .hookTimeout: return "seconds, more than 0 and at most 86400"
        case .extensionsDir: return "an absolute directory (a string starting with / or ~/) or a list of them"
        }
    }

    /// The built-in default, as `config show` prints it.
    package var builtInDefault: String {
        switch self {
        case .fps: return "30"
        case .pauseOnBackground: return "hidden"
        case .onSaved: return "(none)"
        case .hookTimeout: return "60"
        case .extensionsDir: return "(the user's only)"
        }
    }

    /// Checks `value` as the file typed it; returns it in the form ``apply(_:to:)`` reads, or nil when it is wrong.
    func checked(_ value: ConfiguredOption.Value) -> ConfiguredOption.Value? {
        switch (self, value) {
        case (.fps, .integer(let n)) where (1...120).contains(n): return value
        case (.pauseOnBackground, .string(let s)) where ["hidden", "unfocused", "never"].contains(s): return value
        case (.onSaved, .string), (.extensionsDir, .string): return checkedList([value])
        case (.onSaved, .list(let items)), (.extensionsDir, .list(let items)): return checkedList(items)
        case (.hookTimeout, .integer(let n)) where n > 0 && n <= 86_400: return .number(Double(n))
        case (.hookTimeout, .number(let d)) where d > 0 && d <= 86_400: return value
        default: return nil
        }
    }

    private func checkedList(_ items: [ConfiguredOption.Value]) -> ConfiguredOption.Value? {
        var result: [ConfiguredOption.Value] = []
        for item in items {
            guard case .string(var s) = item, !s.isEmpty else { return nil }
            if self == .extensionsDir {
                guard s.hasPrefix("/") || s.hasPrefix("~/") else { return nil }
                s = (s as NSString).expandingTildeInPath
            }
            result.append(.string(s))
        }
        return .list(result)
    }

    /// Sets this key's option on `arguments` to `value` (as ``checked(_:)`` returned it).
    func apply(_ value: ConfiguredOption.Value, to a: inout StartArguments) {
        let text = value.text
        let list: [String] = { if case .list(let items) = value { return items.compactMap(\.text) }; return [] }()
        switch self {
        case .fps: a.fps = Int(text ?? "") ?? a.fps
        case .pauseOnBackground: a.pauseOnBackground = text ?? a.pauseOnBackground
        case .onSaved: a.onSaved = list
        case .hookTimeout: a.hookTimeout = Double(text ?? "")
        case .extensionsDir: a.extensionsDirs = list
        }
    }
}
