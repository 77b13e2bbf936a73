/// What `recordctl start` asks the service to record (the same options as `recordctl record`).
public struct StartArguments: Codable, Sendable, Equatable {
    /// The client's X display (`DISPLAY`): the service records the caller's display.
    public var display: String?
    /// The client's PulseAudio server (`PULSE_SERVER`), if set.
    public var audioServer: String?
    /// Frames per second.
    public var fps: Int = 30
    /// `WxH+X+Y`, or nil.
    public var region: String?
    /// Window id or name, or nil.
    public var window: String?
    /// Hide the cursor.
    public var noCursor = false
    /// No microphone track.
    public var noMic = false
    /// No app audio track.
    public var noAppAudio = false
    /// The microphone track starts switched off (`--mic-off`): silence until `audio-switch` turns it on.
    package var micOff = false
    /// App audio sink name.
    public var appSink: String?
    /// Microphone source name.
    public var micSource: String?
    /// Fail without audio.
    public var requireAudio = false
    /// Destination file, or nil for a timestamped name in the videos directory.
    public var output: String?
    /// "mp4" or "mkv", or nil (from the extension).
    public var format: String?
    /// Replace an existing destination.
    public var overwrite = false
    /// Write no file (only the other extensions: an RTMP broadcast, a replay buffer, …).
    public var noFile = false
    /// "hidden", "unfocused" or "never": when to pause by itself.
    public var pauseOnBackground: String = "hidden"
    /// RTMP endpoints to broadcast to.
    public var rtmp: [String] = []
    /// For `rtmps://` endpoints: a PEM file of the certificate authorities to trust instead of
    /// the system's store (`--rtmp-ca-file`, config `[rtmp] ca-file`), absolute; nil for the store.
    public var rtmpCAFile: String?
    /// SRT listeners to stream to (`--srt`, repeatable): `srt://HOST:PORT?…`, secret.
    public var srt: [String] = []
    /// Extensions to feed (`--extension NAME` with its `--setup key=value` pairs), checked
    /// against their manifests before the recording starts.
    public var extensions: [ExtensionRequest] = []
    /// Directories to look for extensions in besides the user's (`--extensions-dir`), absolute.
    public var extensionsDirs: [String] = []
    /// Codec and quality choices (`--video-codec`, `--crf`, …, after profiles and the config
    /// file), as setup values of the `file` and `rtmp` extensions (`videoCodec`, `crf`,
    /// `bitrate` in bit/s, …), which resolve and check them.
    public var encoding: [String: String] = [:]
    /// "constant" or "variable" (`--frame-rate-mode`).
    public var frameRateMode: String = "variable"
    /// RandR monitor name or index (`--monitor`), or nil.
    public var monitor: String?
    /// Application name or pid whose sound is the app audio (`--app-audio-from`), or nil.
    public var appAudioFrom: String?
    /// Seconds the replay buffer keeps (`--replay-buffer`), or nil for none.
    public var replayBuffer: Double?
    /// The replay buffer's memory bound in MiB (`--replay-buffer-max-mb`), or nil for its default.
    public var replayBufferMaxMegabytes: Int?
    /// The video source (`--source`: "x11", "portal"), or nil to choose by the session.
    public var source: String?
    /// Seconds per file part (`--split-every`), or nil: the file is cut only on `recordctl split`.
    public var splitEvery: Double?
    /// Megabytes (10^6 bytes) per file part (`--split-size`), or nil for no size limit.
    public var splitSize: Double?
    /// Upload the recording when it stops, and each split part as it closes (docs/UPLOADS.md).
    public var upload: UploadOptions?
    /// Where the recording's replay clips go (config `[uploads] replays = true`), unless a
    /// `save-replay --upload` names another target; nil: clips stay local.
    public var uploadReplays: UploadOptions?
    /// Whether an MP4 file gets its index first (`--faststart`): stop then rewrites the file.
    public var faststart: Bool = false
    /// Shell commands run after each file of the recording is final (`--on-saved`, config
    /// `[hooks] on-saved`): the recording, each split part, each replay clip (docs/recordctl/hooks.md).
    public var onSaved: [String] = []
    /// Seconds a hook may run before it is ended (nil: ``HookDefaults/timeoutSeconds``).
    public var hookTimeout: Double?

    /// Default arguments: the whole screen, both audio tracks, MP4.
    public init() {}

    /// Decodes arguments; every key is optional and takes its default when absent.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = StartArguments()
        display = try c.decodeIfPresent(String.self, forKey: .display)
        audioServer = try c.decodeIfPresent(String.self, forKey: .audioServer)
        fps = try c.decodeIfPresent(Int.self, forKey: .fps) ?? d.fps
        region = try c.decodeIfPresent(String.self, forKey: .region)
        window = try c.decodeIfPresent(String.self, forKey: .window)
        noCursor = try c.decodeIfPresent(Bool.self, forKey: .noCursor) ?? d.noCursor
        noMic = try c.decodeIfPresent(Bool.self, forKey: .noMic) ?? d.noMic
        noAppAudio = try c.decodeIfPresent(Bool.self, forKey: .noAppAudio) ?? d.noAppAudio
        micOff = try c.decodeIfPresent(Bool.self, forKey: .micOff) ?? d.micOff
        appSink = try c.decodeIfPresent(String.self, forKey: .appSink)
        micSource = try c.decodeIfPresent(String.self, forKey: .micSource)
        requireAudio = try c.decodeIfPresent(Bool.self, forKey: .requireAudio) ?? d.requireAudio
        output = try c.decodeIfPresent(String.self, forKey: .output)
        format = try c.decodeIfPresent(String.self, forKey: .format)
        overwrite = try c.decodeIfPresent(Bool.self, forKey: .overwrite) ?? d.overwrite
        noFile = try c.decodeIfPresent(Bool.self, forKey: .noFile) ?? d.noFile
        pauseOnBackground = try c.decodeIfPresent(String.self, forKey: .pauseOnBackground) ?? d.pauseOnBackground
        rtmp = try c.decodeIfPresent([String].self, forKey: .rtmp) ?? d.rtmp
        srt = try c.decodeIfPresent([String].self, forKey: .srt) ?? d.srt
        rtmpCAFile = try c.decodeIfPresent(String.self, forKey: .rtmpCAFile)
        extensions = try c.decodeIfPresent([ExtensionRequest].self, forKey: .extensions) ?? d.extensions
        extensionsDirs = try c.decodeIfPresent([String].self, forKey: .extensionsDirs) ?? d.extensionsDirs
        encoding = try c.decodeIfPresent([String: String].self, forKey: .encoding) ?? d.encoding
        frameRateMode = try c.decodeIfPresent(String.self, forKey: .frameRateMode) ?? d.frameRateMode
        monitor = try c.decodeIfPresent(String.self, forKey: .monitor)
        appAudioFrom = try c.decodeIfPresent(String.self, forKey: .appAudioFrom)
        replayBuffer = try c.decodeIfPresent(Double.self, forKey: .replayBuffer)
        replayBufferMaxMegabytes = try c.decodeIfPresent(Int.self, forKey: .replayBufferMaxMegabytes)
        source = try c.decodeIfPresent(String.self, forKey: .source)
        splitEvery = try c.decodeIfPresent(Double.self, forKey: .splitEvery)
        splitSize = try c.decodeIfPresent(Double.self, forKey: .splitSize)
        upload = try c.decodeIfPresent(UploadOptions.self, forKey: .upload)
        uploadReplays = try c.decodeIfPresent(UploadOptions.self, forKey: .uploadReplays)
        faststart = try c.decodeIfPresent(Bool.self, forKey: .faststart) ?? d.faststart
        onSaved = try c.decodeIfPresent([String].self, forKey: .onSaved) ?? d.onSaved
        hookTimeout = try c.decodeIfPresent(Double.self, forKey: .hookTimeout)
    }
}
