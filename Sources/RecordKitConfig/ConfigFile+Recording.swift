import RecordKitControl

extension ConfigFile {
    /// The `record`/`start` options this file sets for `profile` (nil: the top level only): the
    /// profile's keys over the top level's, each with where it was written. Throws for a profile
    /// the file does not define.
    package func recordingOptions(profile: String?) throws(ConfigError) -> [String: ConfiguredOption] {
        var merged = options
        if let profile {
            guard let own = profileOptions[profile] else { throw unknownProfile(profile) }
            merged.merge(own) { _, profile in profile }
        }
        return merged
    }

    /// The uploads in force for `profile`: its `[profiles.NAME.uploads]` over `[uploads]`.
    package func uploads(profile: String?) -> UploadSettings {
        profile.flatMap { profileUploads[$0] } ?? uploads
    }

    /// Start arguments with everything this file sets for `profile` and nothing else: the capture
    /// keys, the hooks, the encoding keys, the outputs' keys (for the service to resolve), and the
    /// uploads (`recordings`/`replays = true`). What a recording started without a command line
    /// records with (a hotkey, obs-websocket); recordctl starts from them and lays its flags over.
    package func startArguments(profile: String?) throws(ConfigError) -> StartArguments {
        var a = StartArguments()
        a.onSaved = hooks.onSaved
        a.hookTimeout = hooks.timeout
        var outputs: [ConfiguredOption] = []
        for option in try recordingOptions(profile: profile).values.sorted(by: Self.fileOrder) {
            if let key = CaptureKey(rawValue: option.name) { key.apply(option.value, to: &a) } else { outputs.append(option) }
        }
        // The other profiles' outputs' keys: checked too, so a mistake anywhere in the file is found.
        a.configuredOptionsToCheck = profileOptions.filter { $0.key != profile }.values.flatMap(\.values)
            .filter { CaptureKey(rawValue: $0.name) == nil }.sorted(by: Self.fileOrder)
        if let caFile = rtmp.caFile, !outputs.contains(where: { $0.name == "rtmp-ca-file" }) {
            // The `[rtmp]` table's older spelling of the same key.
            outputs.append(ConfiguredOption(name: "rtmp-ca-file", value: .string(caFile), origin: "config file (\(path)), [rtmp] ca-file"))
        }
        a.configuredOutputOptions = outputs
        a.encoding = try EffectiveSettings(flags: [:], profile: profile, file: self).setupValues
        let uploads = uploads(profile: profile)
        if uploads.recordings, let target = uploads.target { a.upload = uploads.options(target: target) }
        if uploads.replays, let target = uploads.target { a.uploadReplays = uploads.options(target: target) }
        return a
    }

    /// Every `record`/`start` key this file sets for `profile`, with its value and where it came
    /// from, then the capture keys left at their defaults: the lines of `recordctl config show`.
    package func recordingLines(profile: String?) throws(ConfigError) -> [String] {
        let set = try recordingOptions(profile: profile)
        var lines: [String] = []
        for key in CaptureKey.allCases {
            if let option = set[key.rawValue] { lines.append("\(key.rawValue) = \(Self.show(option.value))  (\(option.origin))") }
            else { lines.append("\(key.rawValue) = \(key.builtInDefault)  (default)") }
        }
        for (name, option) in set.sorted(by: { $0.key < $1.key }) where CaptureKey(rawValue: name) == nil {
            lines.append("\(name) = \(Self.show(option.value))  (\(option.origin))")
        }
        return lines
    }

    /// The uploads in force for `profile`, one line per key, with where each came from.
    package func uploadLines(profile: String?) -> [String] {
        let own = profile.flatMap { profileUploadKeys[$0] } ?? []
        func source(_ key: String) -> String { own.contains(key) ? "profile \(profile ?? "") (\(path)), [profiles.\(profile ?? "").uploads]" : "config file (\(path))" }
        let u = uploads(profile: profile)
        let values: [(String, String?)] = [
            ("target", u.target), ("endpoint", u.endpoint), ("region", u.region), ("addressing", u.addressing),
            ("credentials-profile", u.credentialsProfile), ("name", u.name), ("part-size", u.partSizeMiB.map(String.init)),
            ("delete-after-upload", u.deleteAfterUpload ? "true" : nil), ("recordings", u.recordings ? "true" : nil),
            ("replays", u.replays ? "true" : nil),
        ]
        return values.map { key, value in value.map { "uploads.\(key) = \($0)  (\(source(key)))" } ?? "uploads.\(key) = (unset)  (default)" }
    }

    /// Whether `a` was written before `b` (by the line in their origins).
    package static func fileOrder(_ a: ConfiguredOption, _ b: ConfiguredOption) -> Bool {
        func line(_ o: ConfiguredOption) -> Int { Int(o.origin.split(separator: " ").last ?? "") ?? 0 }
        return (line(a), a.name) < (line(b), b.name)
    }

    static func show(_ value: ConfiguredOption.Value) -> String {
        switch value {
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .list(let items): return "[" + items.map(show).joined(separator: ", ") + "]"
        default: return value.text ?? ""
        }
    }

    func unknownProfile(_ profile: String) -> ConfigError {
        let known = profiles.keys.sorted()
        return ConfigError("no profile \"\(profile)\" in \(path)"
            + (known.isEmpty ? " (it defines none: add a [profiles.\(profile)] table)" : "; it defines: " + known.joined(separator: ", ")))
    }
}
