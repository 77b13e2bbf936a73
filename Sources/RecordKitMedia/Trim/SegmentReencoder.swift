import CFFmpeg

/// Re-encodes one run of H.264 frames for a trim: decodes packets from a key frame, keeps the
/// wanted frames, and encodes them with libx264 into packets that need no other frame (the
/// first is an IDR picture) and carry the same profile, level, size, pixel format, colour
/// description and time base as the input stream.
///
/// The encoder writes its SPS and PPS under `parameterSetID`, an id the input's parameter sets
/// do not use (x264's `sps-id`), so one `avcC` record holding the input's sets and these
/// (``AVCParameterSets/merged(with:)``) describes the whole output. No B-frames: decode order is
/// presentation order, so the caller can give the packets decode times that follow the copied
/// packets'. Quality: CRF 18 (``crf``), a little better than a recording's default of 23, so the
/// re-encoded second or two does not look worse than what surrounds it.
///
/// Not thread-safe; one trim uses it from its own thread.
final class SegmentReencoder {
    static let crf = 18

    /// The encoder's parameter sets (its global header).
    let parameterSets: AVCParameterSets
    private let decoder: UnsafeMutablePointer<AVCodecContext>
    private let encoder: CodecContext
    private let frame: UnsafeMutablePointer<AVFrame>
    private var wanted: [Int64]
    private let offset: Int64
    private var first = true
    /// The encoded packets, in decode order, with pts relative to the cut; the caller owns them.
    private(set) var packets: [UnsafeMutablePointer<AVPacket>] = []

    /// `stream`: the input video stream; `frames`: the pts (stream time base) to re-encode;
    /// `offset`: subtracted from each pts (the cut).
    init(stream: UnsafeMutablePointer<AVStream>, frames: [Int64], offset: Int64, parameterSetID: Int) throws(MediaError) {
        let parameters = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id), let decoder = avcodec_alloc_context3(codec) else {
            throw MediaError("finding an H.264 decoder")
        }
        self.decoder = decoder
        guard let frame = av_frame_alloc() else {
            var owned: UnsafeMutablePointer<AVCodecContext>? = decoder
            avcodec_free_context(&owned)
            throw MediaError("allocating a frame", code: shim_averror(ENOMEM))
        }
        self.frame = frame
        self.wanted = frames
        self.offset = offset
        encoder = try CodecContext(encoderNamed: "libx264")
        var result = avcodec_parameters_to_context(decoder, parameters)
        if result < 0 { throw MediaError("configuring the H.264 decoder", code: result) }
        decoder.pointee.pkt_timebase = stream.pointee.time_base
        result = avcodec_open2(decoder, codec, nil)
        if result < 0 { throw MediaError("opening the H.264 decoder", code: result) }

        let context = encoder.pointer
        context.pointee.width = parameters.pointee.width
        context.pointee.height = parameters.pointee.height
        context.pointee.pix_fmt = AVPixelFormat(rawValue: parameters.pointee.format)
        context.pointee.time_base = stream.pointee.time_base
        let rate = stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
        context.pointee.framerate = rate.num > 0 ? rate : AVRational(num: 30, den: 1)
        context.pointee.sample_aspect_ratio = parameters.pointee.sample_aspect_ratio
        context.pointee.color_range = parameters.pointee.color_range
        context.pointee.colorspace = parameters.pointee.color_space
        context.pointee.color_primaries = parameters.pointee.color_primaries
        context.pointee.color_trc = parameters.pointee.color_trc
        context.pointee.chroma_sample_location = parameters.pointee.chroma_location
        // One key frame, the first (forced); a fixed interval so every run gets the same SPS
        // (x264 derives log2_max_frame_num from it) and the head and tail share one id.
        context.pointee.gop_size = 1000
        context.pointee.max_b_frames = 0
        context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        context.pointee.thread_count = 0
        if parameters.pointee.level > 0 { context.pointee.level = parameters.pointee.level }
        var options = ["preset": "veryfast", "crf": String(Self.crf),
                       "x264-params": "annexb=0:bframes=0:scenecut=0:sps-id=\(parameterSetID)"]
        switch parameters.pointee.profile {
        case 66, 578: options["profile"] = "baseline"   // FF_PROFILE_H264_BASELINE, _CONSTRAINED_BASELINE
        case 77: options["profile"] = "main"
        case 100: options["profile"] = "high"
        default: break                                  // High 10 / 4:2:2 / 4:4:4: x264 picks from the pixel format
        }
        try encoder.open(options: options, describing: "re-encoding \(frames.count) frames of a trim")
        guard let units = AVCConfiguration.lengthPrefixedUnits(encoder.extradata),
              let record = AVCConfiguration.record(from: units), let sets = AVCParameterSets(avcC: record) else {
            throw MediaError("libx264's header holds no SPS and PPS")
        }
        parameterSets = sets
    }

    /// Feeds one input packet (decode order, from the run's key frame on) to the decoder and
    /// encodes the wanted frames it yields.
    func decode(_ packet: UnsafeMutablePointer<AVPacket>?) throws(MediaError) {
        let sent = avcodec_send_packet(decoder, packet)
        if sent < 0 && sent != shim_averror_eof() { throw MediaError("decoding the video before the cut", code: sent) }
        while true {
            let received = avcodec_receive_frame(decoder, frame)
            if received == shim_averror_eagain() || received == shim_averror_eof() { return }
            if received < 0 { throw MediaError("decoding the video before the cut", code: received) }
            defer { av_frame_unref(frame) }
            let pts = frame.pointee.best_effort_timestamp
            guard let position = wanted.firstIndex(of: pts) else { continue }
            wanted.remove(at: position)
            frame.pointee.pts = pts - offset
            frame.pointee.pict_type = first ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
            first = false
            try encoder.encode(frame, what: "re-encoding the frame at pts \(pts)") { packets.append($0) }
        }
    }

    /// Flushes decoder and encoder; throws when a wanted frame never came out of the decoder.
    func finish() throws(MediaError) {
        try decode(nil)
        if !wanted.isEmpty {
            throw MediaError("the decoder gave no frame at pts \(wanted.map(String.init).joined(separator: ", ")); the input is damaged there")
        }
        try encoder.encode(nil, what: "flushing the re-encode") { packets.append($0) }
    }

    deinit {
        for packet in packets {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&owned)
        var context: UnsafeMutablePointer<AVCodecContext>? = decoder
        avcodec_free_context(&context)
    }
}
