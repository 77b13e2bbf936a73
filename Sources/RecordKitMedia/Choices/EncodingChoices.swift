import RecordKit

/// The user's encoding choices, as given (command line, profile or config file): every value is
/// optional, nil meaning "the default". ``resolve(container:streaming:)`` turns them into encoder
/// settings and checks them.
///
/// Codable: travels inside the service's start arguments.
public struct EncodingChoices: Codable, Sendable, Equatable {
    /// `h264`, `hevc` or `av1`.
    public var videoCodec: String?
    /// A libavcodec video encoder by name (`libx264`, `h264_vaapi`, …).
    public var encoder: String?
    /// Preset name (`ultrafast` … `veryslow`; SVT-AV1 also `0` … `13`).
    public var preset: String?
    /// Constant quality (lower is better; x264/x265 0...51, AV1 1...63).
    public var crf: Int?
    /// Video bitrate in bits per second (VBV-capped, no filler).
    public var bitrate: Int?
    /// Seconds between key frames.
    public var keyframeInterval: Double?
    /// `aac` or `opus`.
    public var audioCodec: String?
    /// Audio bitrate in bits per second.
    public var audioBitrate: Int?

    /// No choice made: every default.
    public init(videoCodec: String? = nil, encoder: String? = nil, preset: String? = nil, crf: Int? = nil, bitrate: Int? = nil,
                keyframeInterval: Double? = nil, audioCodec: String? = nil, audioBitrate: Int? = nil) {
        self.videoCodec = videoCodec
        self.encoder = encoder
        self.preset = preset
        self.crf = crf
        self.bitrate = bitrate
        self.keyframeInterval = keyframeInterval
        self.audioCodec = audioCodec
        self.audioBitrate = audioBitrate
    }

    /// Whether any video choice was made (a file that makes none shares a stream's encode).
    public var hasVideoChoice: Bool {
        videoCodec != nil || encoder != nil || preset != nil || crf != nil || bitrate != nil || keyframeInterval != nil
    }
}
