/// How H.264 video is encoded. Handlers that ask for equal settings share one encoder.
public struct VideoEncoderSettings: Sendable, Hashable, Codable {
    /// Rate control.
    public enum RateControl: Sendable, Hashable, Codable {
        /// Constant quality (x264 CRF); the file default is 23.
        case crf(Int)
        /// Constant-bitrate style (bitrate = maxrate, buffer of one second), in bits per second.
        case cbr(bitsPerSecond: Int)
    }
    /// x264 preset name ("ultrafast" … "veryslow").
    public var preset: String
    /// x264 tune ("zerolatency", …) or nil.
    public var tune: String?
    /// Rate control.
    public var rateControl: RateControl
    /// Seconds between key frames.
    public var keyFrameIntervalSeconds: Double
    /// Output width, or nil for the capture size.
    public var width: Int?
    /// Output height, or nil for the capture size.
    public var height: Int?

    /// Creates video encoder settings.
    public init(preset: String = "veryfast", tune: String? = nil, rateControl: RateControl = .crf(23),
                keyFrameIntervalSeconds: Double = 2, width: Int? = nil, height: Int? = nil) {
        self.preset = preset
        self.tune = tune
        self.rateControl = rateControl
        self.keyFrameIntervalSeconds = keyFrameIntervalSeconds
        self.width = width
        self.height = height
    }

    /// The file default: `veryfast`, CRF 23, a key frame every 2 s, yuv420p.
    public static let fileDefault = VideoEncoderSettings()
}

/// How AAC audio is encoded. Handlers that ask for equal settings share one encoder per track.
public struct AudioEncoderSettings: Sendable, Hashable, Codable {
    /// Bits per second.
    public var bitRate: Int
    /// Samples per second (48000).
    public var sampleRate: Int
    /// Channels (2).
    public var channels: Int

    /// Creates audio encoder settings.
    public init(bitRate: Int = 160_000, sampleRate: Int = 48_000, channels: Int = 2) {
        self.bitRate = bitRate
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// AAC 48 kHz stereo at 160 kbit/s.
    public static let standard = AudioEncoderSettings()
}
