/// Where a setting's value came from, highest precedence first.
package enum SettingSource: Sendable, Equatable, CustomStringConvertible {
    /// A command-line flag.
    case flag
    /// A profile of the config file (`--profile NAME`).
    case profile(String, path: String)
    /// The config file's top level.
    case file(String)
    /// RecordKit's built-in default.
    case builtIn

    package var description: String {
        switch self {
        case .flag: return "flag"
        case .profile(let name, let path): return "profile \(name) (\(path))"
        case .file(let path): return "config file (\(path))"
        case .builtIn: return "default"
        }
    }
}

/// The encoding settings in force for one command: each key's value and source, after applying
/// the precedence flag > profile > config file > built-in default.
package struct EffectiveSettings: Sendable {
    /// Set values (normalised) with their source; keys absent here take the built-in default.
    package let values: [SettingKey: (value: String, source: SettingSource)]

    /// Merges `flags` (raw text, checked here) over `profile` of `file` over `file`'s top level.
    /// Throws for a bad flag value or a profile the file does not define.
    package init(flags: [SettingKey: String], profile: String?, file: ConfigFile) throws(ConfigError) {
        var values: [SettingKey: (value: String, source: SettingSource)] = [:]
        for (key, value) in file.defaults { values[key] = (value, .file(file.path)) }
        if let profile {
            guard let settings = file.profiles[profile] else { throw file.unknownProfile(profile) }
            for (key, value) in settings { values[key] = (value, .profile(profile, path: file.path)) }
        }
        for (key, text) in flags {
            do throws(ConfigError) { values[key] = (try key.normalize(text), .flag) } catch {
                throw ConfigError("--\(error.message)")
            }
        }
        // A higher-precedence CRF and bitrate exclude each other: the one from the higher source wins.
        if let crf = values[.crf], let bitrate = values[.bitrate], crf.source != bitrate.source {
            if Self.rank(crf.source) < Self.rank(bitrate.source) { values[.bitrate] = nil } else { values[.crf] = nil }
        }
        self.values = values
    }

    private static func rank(_ source: SettingSource) -> Int {
        switch source {
        case .flag: return 0
        case .profile: return 1
        case .file: return 2
        case .builtIn: return 3
        }
    }

    /// The values set (by a flag, a profile or the file), as setup values of the `file` and
    /// `rtmp` extensions (`videoCodec`, `crf`, `bitrate` in bit/s, …); keys left at their
    /// built-in default are absent.
    package var setupValues: [String: String] {
        Dictionary(uniqueKeysWithValues: values.map { ($0.key.setupKey, $0.value.value) })
    }

    /// One line per key: `preset = slow  (profile streaming (/path))`, defaults marked `default`.
    package var lines: [String] {
        SettingKey.allCases.map { key in
            if let set = values[key] { return "\(key.rawValue) = \(set.value)  (\(set.source))" }
            return "\(key.rawValue) = \(key.builtInDefault)  (default)"
        }
    }
}
