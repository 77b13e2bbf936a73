/// The encoding settings a config file, a profile or a flag can set, by their file/flag name.
package enum SettingKey: String, CaseIterable, Sendable {
    case videoCodec = "video-codec"
    case encoder
    case preset
    case crf
    case bitrate
    case keyframeInterval = "keyframe-interval"
    case audioCodec = "audio-codec"
    case audioBitrate = "audio-bitrate"

    /// The name of the setup key of the `file` and `rtmp` extensions that takes this value.
    package var setupKey: String {
        switch self {
        case .videoCodec: return "videoCodec"
        case .encoder: return "encoder"
        case .preset: return "preset"
        case .crf: return "crf"
        case .bitrate: return "bitrate"
        case .keyframeInterval: return "keyframeInterval"
        case .audioCodec: return "audioCodec"
        case .audioBitrate: return "audioBitrate"
        }
    }

    /// The value RecordKit uses when nothing sets this key, as shown by `config show`.
    package var builtInDefault: String {
        switch self {
        case .videoCodec: return "h264"
        case .encoder: return "(the codec's: libx264, libx265, libsvtav1)"
        case .preset: return "veryfast"
        case .crf: return "23 (files; unless a bitrate is set)"
        case .bitrate: return "none for files; 6000k for RTMP"
        case .keyframeInterval: return "2"
        case .audioCodec: return "aac"
        case .audioBitrate: return "160k (AAC), 128k (Opus)"
        }
    }

    /// Checks a value given as text (`"6M"`, `"4500k"`, `"23"`) and returns its normal form
    /// (bitrates in bit/s); throws a message without location (the caller adds it).
    package func normalize(_ text: String) throws(ConfigError) -> String {
        let value = text.trimmingCharacters(in: " \t")
        switch self {
        case .videoCodec:
            guard ["h264", "hevc", "av1"].contains(value.lowercased()) else { throw ConfigError("\(rawValue) must be h264, hevc or av1, got \"\(value)\"") }
            return value.lowercased()
        case .audioCodec:
            guard ["aac", "opus"].contains(value.lowercased()) else { throw ConfigError("\(rawValue) must be aac or opus, got \"\(value)\"") }
            return value.lowercased()
        case .encoder, .preset:
            guard !value.isEmpty, value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                throw ConfigError("\(rawValue) must be a name (letters, digits, _ and -), got \"\(value)\"")
            }
            return value
        case .crf:
            guard let n = Int(value), (0...63).contains(n) else { throw ConfigError("crf must be a whole number from 0 to 63, got \"\(value)\"") }
            return String(n)
        case .keyframeInterval:
            guard let s = Double(value), s > 0, s <= 60 else { throw ConfigError("keyframe-interval must be seconds, more than 0 and at most 60, got \"\(value)\"") }
            return value
        case .bitrate, .audioBitrate:
            guard let bits = Self.bitsPerSecond(value), bits > 0 else {
                throw ConfigError("\(rawValue) must be bits per second, like 6000000, 6000k or 6M, got \"\(value)\"")
            }
            return String(bits)
        }
    }

    /// `6000000`, `6000k`, `6M`, `2.5M` as bits per second, or nil.
    static func bitsPerSecond(_ text: String) -> Int? {
        let lower = text.lowercased()
        var multiplier = 1.0
        var digits = Substring(lower)
        if lower.hasSuffix("k") { multiplier = 1e3; digits = digits.dropLast() }
        else if lower.hasSuffix("m") { multiplier = 1e6; digits = digits.dropLast() }
        guard let n = Double(digits), n.isFinite, n > 0 else { return nil }
        return Int((n * multiplier).rounded())
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
