/// What `recordctl start` asks the service to record (the same options as `recordctl record`).
package struct StartArguments: Codable, Sendable, Equatable {
    /// The client's X display (`DISPLAY`): the service records the caller's display.
    package var display: String?
    /// The client's PulseAudio server (`PULSE_SERVER`), if set.
    package var audioServer: String?
    /// Frames per second.
    package var fps: Int = 30
    /// `WxH+X+Y`, or nil.
    package var region: String?
    /// Window id or name, or nil.
    package var window: String?
    /// Hide the cursor.
    package var noCursor = false
    /// No microphone track.
    package var noMic = false
    /// No app audio track.
    package var noAppAudio = false
    /// The microphone track starts switched off (`--mic-off`): silence until `audio-switch` turns it on.
    package var micOff = false
    /// App audio sink name.
    package var appSink: String?
    /// Microphone source name.
    package var micSource: String?
    /// Fail without audio.
    package var requireAudio = false
    /// Destination file, or nil for a timestamped name in the videos directory.
    package var output: String?
    /// "mp4" or "mkv", or nil (from the extension).
    package var format: String?
    /// Replace an existing destination.
    package var overwrite = false
    /// Write no file (only the other extensions: an RTMP broadcast, a replay buffer, …).
    package var noFile = false
    /// "hidden", "unfocused" or "never": when to pause by itself.
    package var pauseOnBackground: String = "hidden"
    /// RTMP endpoints to broadcast to.
    package var rtmp: [String] = []
    /// For `rtmps://` endpoints: a PEM file of the certificate authorities to trust instead of
    /// the system's store (`--rtmp-ca-file`, config `[rtmp] ca-file`), absolute; nil for the store.
    package var rtmpCAFile: String?
    /// SRT listeners to stream to (`--srt`, repeatable): `srt://HOST:PORT?…`, secret.
    package var srt: [String] = []
    /// Extensions to feed (`--extension NAME` with its `--setup key=value` pairs), checked
    /// against their manifests before the recording starts.
    package var extensions: [ExtensionRequest] = []
    /// Directories to look for extensions in besides the user's (`--extensions-dir`), absolute.
    package var extensionsDirs: [String] = []
    /// Codec and quality choices (`--video-codec`, `--crf`, …, after profiles and the config
    /// file), as setup values of the `file` and `rtmp` extensions (`videoCodec`, `crf`,
    /// `bitrate` in bit/s, …), which resolve and check them.
    package var encoding: [String: String] = [:]
    /// "constant" or "variable" (`--frame-rate-mode`).
    package var frameRateMode: String = "variable"
    /// RandR monitor name or index (`--monitor`), or nil.
    package var monitor: String?
    /// Application name or pid whose sound is the app audio (`--app-audio-from`), or nil.
    package var appAudioFrom: String?
    /// Seconds the replay buffer keeps (`--replay-buffer`), or nil for none.
    package var replayBuffer: Double?
    /// The replay buffer's memory bound in MiB (`--replay-buffer-max-mb`), or nil for its default.
    package var replayBufferMaxMegabytes: Int?
    /// The video source (`--source`: "x11", "portal"), or nil to choose by the session.
    package var source: String?
    /// Seconds per file part (`--split-every`), or nil: the file is cut only on `recordctl split`.
    package var splitEvery: Double?
    /// Megabytes (10^6 bytes) per file part (`--split-size`), or nil for no size limit.
    package var splitSize: Double?
    /// Upload the recording when it stops, and each split part as it closes (docs/UPLOADS.md).
    package var upload: UploadOptions?
    /// Where the recording's replay clips go (config `[uploads] replays = true`), unless a
    /// `save-replay --upload` names another target; nil: clips stay local.
    package var uploadReplays: UploadOptions?
    /// Whether an MP4 file gets its index first (`--faststart`): stop then rewrites the file.
    package var faststart: Bool = false
    /// Shell commands run after each file of the recording is final (`--on-saved`, config
    /// `[hooks] on-saved`): the recording, each split part, each replay clip (docs/recordctl/hooks.md).
    package var onSaved: [String] = []
    /// Seconds a hook may run before it is ended (nil: ``HookDefaults/timeoutSeconds``).
    package var hookTimeout: Double?
    /// The camera composited into the picture (`--camera [NAME]`): its name, "" for the first
    /// camera, nil for none.
    package var camera: String?
    /// The camera's corner (`--camera-position`): top-left, top-right, bottom-left, bottom-right.
    package var cameraPosition: String = "bottom-right"
    /// The camera's width in percent of the picture's (`--camera-size`, "25%").
    package var cameraSize: String = "25%"
    /// The camera's corner starts hidden (`--camera-off`) until `camera-switch` turns it on.
    package var cameraOff = false

    /// Default arguments: the whole screen, both audio tracks, MP4.
    package init() {}

    /// Decodes arguments; every key is optional and takes its default when absent.
    package init(from decoder: any Decoder) throws {
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
        camera = try c.decodeIfPresent(String.self, forKey: .camera)
        cameraPosition = try c.decodeIfPresent(String.self, forKey: .cameraPosition) ?? d.cameraPosition
        cameraSize = try c.decodeIfPresent(String.self, forKey: .cameraSize) ?? d.cameraSize
        cameraOff = try c.decodeIfPresent(Bool.self, forKey: .cameraOff) ?? d.cameraOff
    }
}
