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
    /// "hidden", "unfocused" or "never".
    public var pauseOnBackground: String = "hidden"
    /// RTMP endpoints to broadcast to.
    public var rtmp: [String] = []

    /// Default arguments: the whole screen, both audio tracks, MP4.
    public init() {}
}
