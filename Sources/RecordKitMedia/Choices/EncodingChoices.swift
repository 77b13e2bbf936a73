import RecordKit

/// The user's encoding choices, as given (command line, profile or config file): every value is
/// optional, nil meaning "the default". ``resolve(container:streaming:)`` turns them into encoder
/// settings and checks them.
///
/// Codable: travels inside the service's start arguments.
package struct EncodingChoices: Codable, Sendable, Equatable {
    /// `h264`, `hevc` or `av1`.
    package var videoCodec: String?
    /// A libavcodec video encoder by name (`libx264`, `h264_vaapi`, …).
    package var encoder: String?
    /// Preset name (`ultrafast` … `veryslow`; SVT-AV1 also `0` … `13`).
    package var preset: String?
    /// Constant quality (lower is better; x264/x265 0...51, AV1 1...63).
    package var crf: Int?
    /// Video bitrate in bits per second (VBV-capped, no filler).
    package var bitrate: Int?
    /// Seconds between key frames.
    package var keyframeInterval: Double?
    /// `aac` or `opus`.
    package var audioCodec: String?
    /// Audio bitrate in bits per second.
    package var audioBitrate: Int?

    /// No choice made: every default.
    package init(videoCodec: String? = nil, encoder: String? = nil, preset: String? = nil, crf: Int? = nil, bitrate: Int? = nil,
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
    package var hasVideoChoice: Bool {
        videoCodec != nil || encoder != nil || preset != nil || crf != nil || bitrate != nil || keyframeInterval != nil
    }
}
