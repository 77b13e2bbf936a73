import Foundation
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
        var defaults: [SettingKey: String] = [:]
        var profiles: [String: [SettingKey: String]] = [:]
        var hooks = HookSettings()
        var hotkeys = HotkeySettings()
        var metrics = MetricsSettings()
        var uploads = UploadSettings()
        var rtmp = RTMPSettings()
        for key in table.keys {
            if key == "uploads" {
                guard let t = table[key]?.table else {
                    throw ConfigError("\(path), line \(Self.line(of: key, in: lines)): uploads must be a table: [uploads]")
                }
                let header = lines.firstIndex { $0.trimmingCharacters(in: " \t") == "[uploads]" }.map { $0 + 1 } ?? 0
                uploads = try UploadSettings(t, path: path) { Self.line(of: $0, in: lines, after: header) }
            } else if key == "rtmp" {
                guard let t = table[key]?.table else {
                    throw ConfigError("\(path), line \(Self.line(of: key, in: lines)): rtmp must be a table: [rtmp]")
                }
                let header = lines.firstIndex { $0.trimmingCharacters(in: " \t") == "[rtmp]" }.map { $0 + 1 } ?? 0
                rtmp = try RTMPSettings(t, path: path) { Self.line(of: $0, in: lines, after: header) }
            } else if key == "metrics" {
                guard let t = table[key]?.table else {
                    throw ConfigError("\(path), line \(Self.line(of: key, in: lines)): metrics must be a table: [metrics]")
                }
                let header = lines.firstIndex { $0.trimmingCharacters(in: " \t") == "[metrics]" }.map { $0 + 1 } ?? 0
                metrics = try MetricsSettings(t, path: path) { Self.line(of: $0, in: lines, after: header) }
            } else if key == "hotkeys" {
                guard let t = table[key]?.table else {
                    throw ConfigError("\(path), line \(Self.line(of: key, in: lines)): hotkeys must be a table: [hotkeys]")
                }
                let header = lines.firstIndex { $0.trimmingCharacters(in: " \t") == "[hotkeys]" }.map { $0 + 1 } ?? 0
                hotkeys = try HotkeySettings(t, path: path) { Self.line(of: $0, in: lines, after: header) }
            } else if key == "hooks" {
                guard let t = table[key]?.table else {
                    throw ConfigError("\(path), line \(Self.line(of: key, in: lines)): hooks must be a table: [hooks]")
                }
                let header = lines.firstIndex { $0.trimmingCharacters(in: " \t") == "[hooks]" }.map { $0 + 1 } ?? 0
                hooks = try HookSettings(t, path: path) { Self.line(of: $0, in: lines, after: header) }
            } else if key == "profiles" {
                guard let all = table[key]?.table else {
                    throw ConfigError("\(path), line \(Self.line(of: key, in: lines)): profiles must be a table: [profiles.NAME]")
                }
                for name in all.keys {
                    guard let profile = all[name]?.table else {
                        throw ConfigError("\(path), line \(Self.line(of: name, in: lines)): profile \(name) must be a table: [profiles.\(name)]")
                    }
                    let header = lines.firstIndex { $0.contains("profiles.\(name)") }.map { $0 + 1 } ?? 0
                    profiles[name] = try Self.settings(profile, path: path, lines: lines, after: header, context: "profile \(name)")
                }
            } else {
                guard let setting = SettingKey(rawValue: key) else {
                    throw ConfigError("\(path), line \(Self.line(of: key, in: lines)): unknown setting \"\(key)\"; known: "
                        + SettingKey.allCases.map(\.rawValue).joined(separator: ", ") + ", and the tables [hooks], [hotkeys], [metrics], [rtmp], [uploads] and [profiles.NAME]")
                }
                defaults[setting] = try Self.value(table[key], key: setting, path: path, line: Self.line(of: key, in: lines))
            }
        }
        self.defaults = defaults
        self.profiles = profiles
        self.hooks = hooks
        self.hotkeys = hotkeys
        self.metrics = metrics
        self.uploads = uploads
        self.rtmp = rtmp
    }

    private static func settings(_ table: TOMLTable, path: String, lines: [String], after: Int, context: String) throws(ConfigError) -> [SettingKey: String] {
        var result: [SettingKey: String] = [:]
        for key in table.keys {
            let line = Self.line(of: key, in: lines, after: after)
            guard let setting = SettingKey(rawValue: key) else {
                throw ConfigError("\(path), line \(line): unknown setting \"\(key)\" in \(context); known: " + SettingKey.allCases.map(\.rawValue).joined(separator: ", "))
            }
            result[setting] = try value(table[key], key: setting, path: path, line: line)
        }
        return result
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
