import ArgumentParser
import RecordKitConfig
import RecordCtlSupport
import RecordKitControl

/// Codec and quality choices, and the config profile: shared by `record`, `start` and `config show`.
///
/// Values are checked in ``effective()`` (flag > `--profile` > config file > built-in default),
/// then, as setup values of the `file` and `rtmp` extensions, by those extensions (which open
/// each chosen encoder once); every mistake is exit 64, before anything records.
struct EncodingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Video codec: h264 (libx264), hevc (libx265) or av1 (libsvtav1).", valueName: "CODEC"))
    var videoCodec: String?

    @Option(help: ArgumentHelp("A libavcodec video encoder by name (libx264, h264_vaapi, h264_nvenc, …).", valueName: "NAME"))
    var encoder: String?

    @Option(help: ArgumentHelp("Encoder preset: ultrafast … veryslow (AV1 also 0 … 13). Default veryfast.", valueName: "NAME"))
    var preset: String?

    @Option(help: ArgumentHelp("Constant quality, lower is better (H.264/HEVC 0-51, AV1 1-63). Default 23 for files.", valueName: "N"))
    var crf: String?

    @Option(help: ArgumentHelp("Video bitrate (6000000, 6000k or 6M), capped by a one-second buffer. Default for RTMP: 6M.", valueName: "RATE"))
    var bitrate: String?

    @Option(help: ArgumentHelp("Seconds between key frames (default 2).", valueName: "SECONDS"))
    var keyframeInterval: String?

    @Option(help: ArgumentHelp("Audio codec: aac or opus (Opus needs a Matroska file: mkv).", valueName: "CODEC"))
    var audioCodec: String?

    @Option(help: ArgumentHelp("Audio bitrate (160k, 128000, …).", valueName: "RATE"))
    var audioBitrate: String?

    @Option(help: ArgumentHelp("Use the settings of this profile of the config file ([profiles.NAME] in $XDG_CONFIG_HOME/recordkit/config.toml).", valueName: "NAME"))
    var profile: String?

    /// The flags given, by setting key.
    var flags: [SettingKey: String] {
        var f: [SettingKey: String] = [:]
        f[.videoCodec] = videoCodec
        f[.encoder] = encoder
        f[.preset] = preset
        f[.crf] = crf
        f[.bitrate] = bitrate
        f[.keyframeInterval] = keyframeInterval
        f[.audioCodec] = audioCodec
        f[.audioBitrate] = audioBitrate
        return f
    }

    /// The settings in force: flags over the profile over the config file over the defaults.
    func effective() throws -> EffectiveSettings {
        do throws(ConfigError) {
            return try EffectiveSettings(flags: flags, profile: profile, file: try ConfigFile())
        } catch {
            throw ValidationError(error.message)
        }
    }
}
