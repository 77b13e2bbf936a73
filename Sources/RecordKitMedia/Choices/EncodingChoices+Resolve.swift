import RecordKit

extension EncodingChoices {
    /// The default bitrate of a live stream (what services ask for at 1080p30), bit/s.
    package static let defaultStreamBitrate = 6_000_000

    /// Turns the choices into settings for a file in `container` (`"mp4"` or `"mkv"`) and, when
    /// `streaming`, for the RTMP streams; throws a message naming the bad value and what to use.
    ///
    /// Rules: the video codec is `videoCodec`, else the `encoder`'s codec, else H.264; a CRF and a
    /// bitrate exclude each other; the file defaults to CRF 23, the stream to 6000 kbit/s. With
    /// streams and no file-only choice (codec other than H.264, a CRF, Opus), the file records the
    /// stream's encode (one encoder). MP4 takes H.264, HEVC and AV1 with AAC (what players read);
    /// Matroska takes every combination. Streams are H.264 + AAC. Does not open any encoder:
    /// see ``EncoderCheck``.
    package func resolve(container: String, streaming: Bool) throws(MediaError) -> ResolvedEncoding {
        var notes: [String] = []
        var codec: Codec = .h264
        if let name = videoCodec {
            guard let c = Codec(rawValue: name.lowercased()), c.isVideo else {
                throw MediaError("unknown video codec '\(name)': use h264, hevc or av1")
            }
            codec = c
        }
        if let encoder {
            guard let encoderCodec = VideoEncoderOptions.codec(ofEncoder: encoder) else {
                throw MediaError("FFmpeg has no H.264, HEVC or AV1 video encoder named '\(encoder)' (see `ffmpeg -encoders`)")
            }
            if videoCodec == nil { codec = encoderCodec }
            guard encoderCodec == codec else {
                throw MediaError("--encoder \(encoder) makes \(encoderCodec.rawValue), not the \(codec.rawValue) asked for with --video-codec")
            }
        }
        if crf != nil && bitrate != nil { throw MediaError("--crf and --bitrate exclude each other: give one") }
        if let bitrate, bitrate < 10_000 { throw MediaError("video bitrate \(bitrate) bit/s is too low (at least 10k)") }
        if let keyframeInterval, !(keyframeInterval > 0 && keyframeInterval <= 60) {
            throw MediaError("keyframe interval \(keyframeInterval) s is out of range (more than 0, at most 60)")
        }
        var audioCodec: Codec = .aac
        if let name = self.audioCodec {
            guard let c = Codec(rawValue: name.lowercased()), !c.isVideo else { throw MediaError("unknown audio codec '\(name)': use aac or opus") }
            audioCodec = c
        }
        let container = container.lowercased()
        if container == "mp4" && audioCodec == .opus {
            throw MediaError("MP4 files get AAC audio only (many players cannot read Opus in MP4): use --audio-codec aac, or --format mkv for Opus")
        }

        let preset = self.preset ?? "veryfast"
        let keyframes = keyframeInterval ?? 2
        // Hardware and other encoders have no CRF: without a choice they get the stream's bitrate.
        let hasCRF = encoder.map { ["libx264", "libx265", "libsvtav1"].contains($0) } ?? true
        let fileRate: VideoEncoderSettings.RateControl = bitrate.map { .cbr(bitsPerSecond: $0) }
            ?? (crf == nil && !hasCRF ? .cbr(bitsPerSecond: Self.defaultStreamBitrate) : .crf(crf ?? 23))
        var fileVideo = VideoEncoderSettings(codec: codec, encoderName: encoder, preset: preset, rateControl: fileRate,
                                             keyFrameIntervalSeconds: keyframes)
        var fileAudio = AudioEncoderSettings(codec: audioCodec, bitRate: audioBitrate ?? (audioCodec == .opus ? 128_000 : 160_000))

        let streamEncoder = codec == .h264 ? encoder : nil
        let streamVideo = VideoEncoderSettings(codec: .h264, encoderName: streamEncoder, preset: preset,
                                               rateControl: .cbr(bitsPerSecond: bitrate ?? Self.defaultStreamBitrate),
                                               keyFrameIntervalSeconds: keyframes)
        let streamAudio = AudioEncoderSettings(codec: .aac, bitRate: audioCodec == .aac ? (audioBitrate ?? 160_000) : 160_000)
        if streaming {
            if codec != .h264 || audioCodec != .aac {
                notes.append("the RTMP stream stays H.264 + AAC (FLV in this FFmpeg carries nothing else; HEVC, AV1 or Opus over RTMP "
                    + "need Enhanced RTMP, FFmpeg 6.1 or later, and a server that accepts it); the file is encoded separately as "
                    + "\(codec.rawValue) + \(audioCodec.rawValue)")
            } else if crf == nil {
                fileVideo = streamVideo  // one encode: the file records the stream's
                fileAudio = streamAudio
            }
        }
        return ResolvedEncoding(fileVideo: fileVideo, fileAudio: fileAudio, streamVideo: streamVideo, streamAudio: streamAudio, notes: notes)
    }
}
