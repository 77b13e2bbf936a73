import RecordKit

/// What ``EncodingChoices`` resolve to: the file's encoders and the live streams' encoders.
package struct ResolvedEncoding: Sendable, Equatable {
    /// The file's video settings.
    package var fileVideo: VideoEncoderSettings
    /// The file's audio settings (every track).
    package var fileAudio: AudioEncoderSettings
    /// The RTMP streams' video settings: always H.264 (FLV in FFmpeg 5.1 carries nothing else).
    package var streamVideo: VideoEncoderSettings
    /// The RTMP streams' audio settings: always AAC.
    package var streamAudio: AudioEncoderSettings
    /// Notes for the user (for example: the stream stays H.264 while the file is HEVC).
    package var notes: [String]

    /// Whether the file records the stream's video encode (one encoder for both).
    package var fileSharesStreamEncode: Bool { fileVideo == streamVideo }
}
