/// How video is encoded (H.264 by default). Handlers that ask for equal settings share one encoder.
public struct VideoEncoderSettings: Sendable, Hashable, Codable {
    /// Rate control.
    public enum RateControl: Sendable, Hashable, Codable {
        /// Constant quality (CRF; x264 and x265 0...51, SVT-AV1 1...63); the file default is 23.
        case crf(Int)
        /// A target bitrate in bits per second, capped by a VBV of one second (maxrate = bitrate,
        /// buffer = one second of it): what a live service takes. No filler data is added, so a
        /// file that shares this encode is never larger than the bitrate says.
        case cbr(bitsPerSecond: Int)
    }
    /// The video codec (``Codec/h264``, ``Codec/hevc`` or ``Codec/av1``).
    public var codec: Codec
    /// A libavcodec encoder by name (`libx264`, `h264_vaapi`, …) instead of the codec's default
    /// software encoder (``Codec/defaultEncoderName``), or nil.
    public var encoderName: String?
    /// Preset name: x264/x265's "ultrafast" … "veryslow"; for SVT-AV1 also its numbers "0" … "13"
    /// (the x264 names map onto them, "veryfast" to 10).
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
    public init(codec: Codec = .h264, encoderName: String? = nil, preset: String = "veryfast", tune: String? = nil,
                rateControl: RateControl = .crf(23), keyFrameIntervalSeconds: Double = 2, width: Int? = nil, height: Int? = nil) {
        self.codec = codec
        self.encoderName = encoderName
        self.preset = preset
        self.tune = tune
        self.rateControl = rateControl
        self.keyFrameIntervalSeconds = keyFrameIntervalSeconds
        self.width = width
        self.height = height
    }

    /// The file default: H.264 (libx264) `veryfast`, CRF 23, a key frame every 2 s, yuv420p.
    public static let fileDefault = VideoEncoderSettings()

    /// The libavcodec encoder these settings open.
    public var resolvedEncoderName: String { encoderName ?? codec.defaultEncoderName }
}

/// How audio is encoded (AAC by default). Handlers that ask for equal settings share one encoder per track.
public struct AudioEncoderSettings: Sendable, Hashable, Codable {
    /// The audio codec (``Codec/aac`` or ``Codec/opus``).
    public var codec: Codec
    /// Bits per second.
    public var bitRate: Int
    /// Samples per second (48000).
    public var sampleRate: Int
    /// Channels (2).
    public var channels: Int

    /// Creates audio encoder settings.
    public init(codec: Codec = .aac, bitRate: Int = 160_000, sampleRate: Int = 48_000, channels: Int = 2) {
        self.codec = codec
        self.bitRate = bitRate
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// AAC 48 kHz stereo at 160 kbit/s.
    public static let standard = AudioEncoderSettings()
}
