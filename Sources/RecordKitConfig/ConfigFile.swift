import Foundation
import Glibc
import RecordKitControl
import TOMLKit

/// The user's config file, `$XDG_CONFIG_HOME/recordkit/config.toml` (else `~/.config/…`):
/// defaults at the top level and named profiles under `[profiles.NAME]`, every value checked.
///
/// ```toml
/// preset = "veryfast"
/// crf = 23
///
/// [profiles.streaming]
/// bitrate = "4500k"
/// keyframe-interval = 2
/// ```
///
/// A file that does not parse, an unknown key, or a bad value is a ``ConfigError`` naming the
/// file and the line. A missing file is no error: it sets nothing.
package struct ConfigFile: Sendable {
    /// The file's path (whether or not it exists).
    package let path: String
    /// Top-level settings, normalised (``SettingKey/normalize(_:)``).
    package let defaults: [SettingKey: String]
    /// Profiles by name.
    package let profiles: [String: [SettingKey: String]]
    /// The `[hooks]` table.
    package let hooks: HookSettings
    /// The `[hotkeys]` table.
    package let hotkeys: HotkeySettings
    /// The `[metrics]` table.
    package let metrics: MetricsSettings
    /// The `[uploads]` table.
    package let uploads: UploadSettings
    /// The `[rtmp]` table.
    package let rtmp: RTMPSettings
    /// The top level's `record`/`start` options by name: the capture keys (``CaptureKey``, checked
    /// here) and the outputs' keys (checked against the extensions' declarations where the
    /// recording starts, and by `recordctl config check`), each with the line it was written on.
    package let options: [String: ConfiguredOption]
    /// The same for each profile.
    package let profileOptions: [String: [String: ConfiguredOption]]
    /// Each profile's uploads: its `[profiles.NAME.uploads]` over `[uploads]` (profiles without one are absent).
    package let profileUploads: [String: UploadSettings]
    /// The keys each profile's `[profiles.NAME.uploads]` writes (for `config show`'s sources).
    package let profileUploadKeys: [String: Set<String>]

    /// Where the config file is: `$XDG_CONFIG_HOME/recordkit/config.toml`, else `$HOME/.config/recordkit/config.toml`.
    package static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/recordkit/config.toml" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.config/recordkit/config.toml"
    }

    /// Reads and checks the file at `path`; a missing file gives an empty configuration.
    package init(path: String = ConfigFile.defaultPath()) throws(ConfigError) {
        guard FileManager.default.fileExists(atPath: path) else {
            try self.init(text: "", path: path)
            return
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigError("\(path): cannot be read as UTF-8 text")
        }
        try self.init(text: text, path: path)
        try refuseSharedSecrets()
    }

    /// Throws when the file holds a secret (a stream key or passphrase in an endpoint's URL) and
    /// its mode lets the group or others read it: the same rule as the private file's.
    func refuseSharedSecrets() throws(ConfigError) {
        let all = Array(options.values) + profileOptions.values.flatMap(\.values)
        guard let secret = all.first(where: { Self.holdsSecret($0.value) }) else { return }
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & 0o077 != 0 else { return }
        throw ConfigError("\(path): holds secrets (\(secret.origin): \(secret.name) has a stream key) and is readable by others "
                          + "(mode \(String(st.st_mode & 0o777, radix: 8))); run chmod 600 \(path), or keep the key in a file (rtmp-key-file)")
    }

    private static func holdsSecret(_ value: ConfiguredOption.Value) -> Bool {
        switch value {
        case .string(let s): return SecretRedactor.redact(s) != s
        case .list(let items): return items.contains(where: holdsSecret)
        default: return false
        }
    }

    /// Parses `text` as the contents of the file at `path` (used for messages only).
    package init(text: String, path: String) throws(ConfigError) {
        self.path = path
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError("\(path), line \(error.source.begin.line): \(error.description) (not valid TOML)")
        } catch {
            throw ConfigError("\(path): not valid TOML: \(error)")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func header(_ name: String) -> Int {
            lines.firstIndex { $0.trimmingCharacters(in: " \t") == "[\(name)]" }.map { $0 + 1 } ?? 0
        }
        func child(_ key: String, in parent: ConfigTable) throws(ConfigError) -> ConfigTable {
            var t = try parent.subtable(key)
            let after = header(t.name)
            t = ConfigTable(table: t.table, name: t.name, path: path) { Self.line(of: $0, in: lines, after: after) }
            return t
        }
        let top = ConfigTable(table: table, name: "", path: path) { Self.line(of: $0, in: lines) }
        var defaults: [SettingKey: String] = [:]
        var profiles: [String: [SettingKey: String]] = [:]
        var options: [String: ConfiguredOption] = [:]
        var profileOptions: [String: [String: ConfiguredOption]] = [:]
        var profileUploadTables: [String: ConfigTable] = [:]
        var hooks = HookSettings()
        var hotkeys = HotkeySettings()
        var metrics = MetricsSettings()
        var uploads = UploadSettings()
        var rtmp = RTMPSettings()
        for key in top.keys {
            switch key {
            case "uploads": uploads = try UploadSettings(try child(key, in: top))
            case "rtmp": rtmp = try RTMPSettings(try child(key, in: top))
            case "metrics": metrics = try MetricsSettings(try child(key, in: top))
            case "hotkeys": hotkeys = try HotkeySettings(try child(key, in: top))
            case "hooks": hooks = try HookSettings(try child(key, in: top))
            case "profiles":
                let all = try top.subtable(key)
                for name in all.keys {
                    let profile = try child(name, in: all)
                    var encoding: [SettingKey: String] = [:]
                    var recording: [String: ConfiguredOption] = [:]
                    for key in profile.keys {
                        if key == "uploads" {
                            profileUploadTables[name] = try child(key, in: profile)
                        } else {
                            try Self.read(key, of: profile, origin: "profile \(name) (\(path))", encoding: &encoding, options: &recording)
                        }
                    }
                    profiles[name] = encoding
                    profileOptions[name] = recording
                }
            default:
                try Self.read(key, of: top, origin: "config file (\(path))", encoding: &defaults, options: &options)
            }
        }
        var profileUploads: [String: UploadSettings] = [:]
        for (name, t) in profileUploadTables { profileUploads[name] = try UploadSettings(t, over: uploads) }
        self.defaults = defaults
        self.profiles = profiles
        self.options = options
        self.profileOptions = profileOptions
        self.profileUploads = profileUploads
        self.profileUploadKeys = profileUploadTables.mapValues { Set($0.keys) }
        self.hooks = hooks
        self.hotkeys = hotkeys
        self.metrics = metrics
        self.uploads = uploads
        self.rtmp = rtmp
    }

    /// Reads `key` of the top level or a profile: an encoding setting, a capture key (checked), or an
    /// output's key (kept with its line for the catalog). A table there is an error.
    private static func read(_ key: String, of t: ConfigTable, origin: String, encoding: inout [SettingKey: String],
                             options: inout [String: ConfiguredOption]) throws(ConfigError) {
        let line = t.line(key)
        if let setting = SettingKey(rawValue: key) {
            encoding[setting] = try value(t.table[key], key: setting, path: t.path, line: line)
            return
        }
        guard let value = Self.value(of: t.table[key]) else {
            throw ConfigError("\(t.path), line \(line): unknown table [\(t.qualified(key))]; the tables are [hooks], [hotkeys], [metrics], "
                              + "[rtmp], [uploads], [profiles.NAME] and [profiles.NAME.uploads]")
        }
        let at = "\(origin), line \(line)"
        if let capture = CaptureKey(rawValue: key) {
            guard let checked = capture.checked(value) else { throw t.mistake(key, mustBe: capture.expected) }
            options[key] = ConfiguredOption(name: key, value: checked, origin: at)
        } else {
            options[key] = ConfiguredOption(name: key, value: value, origin: at)
        }
    }

    /// A TOML value as a configured value; nil for a table.
    private static func value(of v: (any TOMLValueConvertible)?) -> ConfiguredOption.Value? {
        guard let v else { return nil }
        if let b = v.bool { return .bool(b) }
        if let i = v.int { return .integer(i) }
        if let d = v.double { return .number(d) }
        if let s = v.string { return .string(s) }
        if let list = v.array {
            var items: [ConfiguredOption.Value] = []
            for item in list {
                guard let value = value(of: item) else { return nil }
                items.append(value)
            }
            return .list(items)
        }
        return nil
    }

    private static func value(_ value: (any TOMLValueConvertible)?, key: SettingKey, path: String, line: Int) throws(ConfigError) -> String {
        let text: String
        if let s = value?.string { text = s }
        else if let i = value?.int { text = String(i) }
        else if let d = value?.double { text = String(d) }
        else { throw ConfigError("\(path), line \(line): \(key.rawValue) must be a string or a number") }
        do throws(ConfigError) { return try key.normalize(text) } catch { throw ConfigError("\(path), line \(line): \(error.message)") }
    }

    /// The 1-based line where `key = …` is written (at or after line `after`), or the first line that names it.
    static func line(of key: String, in lines: [String], after: Int = 0) -> Int {
        for (i, line) in lines.enumerated() where i >= after {
            let t = line.trimmingCharacters(in: " \t")
            if t.hasPrefix(key) {
                let rest = t.dropFirst(key.count).trimmingPrefix(while: { $0 == " " || $0 == "\t" })
                if rest.hasPrefix("=") || rest.hasPrefix("]") { return i + 1 }
            }
        }
        return (lines.firstIndex { $0.contains(key) } ?? 0) + 1
    }
}

extension Substring {
    fileprivate func trimmingPrefix(while predicate: (Character) -> Bool) -> Substring {
        var s = self
        while let f = s.first, predicate(f) { s = s.dropFirst() }
        return s
    }
}
