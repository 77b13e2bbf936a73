import CFFmpeg
import RecordKit

/// An H.264 encoder (libx264 through libavcodec) that takes BGR0 frames and emits AVCC packets.
///
/// Output: yuv420p, BT.709 limited range (signalled in the stream), a key frame every
/// ``VideoEncoderSettings/keyFrameIntervalSeconds``, a global header (``EncodedFormat/extradata``
/// is an `avcC` record) and packets whose NAL units carry 4-byte big-endian lengths: what MP4,
/// Matroska and FLV store as is. Packet timestamps are in units of `1 / frameRate` seconds.
///
/// Threading: not thread-safe. Use one encoder from one thread at a time (a serial queue);
/// the packets it emits are immutable and may go anywhere.
public final class VideoEncoder: @unchecked Sendable {
    /// The encoded stream's description, complete before the first packet (global header included).
    public let format: EncodedFormat
    /// Identifies this encoder; every packet carries it as ``EncodedPacket/encoderID``.
    public let id: String

    private let codec: CodecContext
    private let frame: UnsafeMutablePointer<AVFrame>
    private var scaler: FrameScaler?
    /// Damage-driven conversion (issue 11): band scaler, and whether `frame` holds the last picture.
    private var bands: BandScaler?
    private var pictureValid = false
    private var lastKeyPts = Int64.min / 2
    /// Picture rows converted from BGR0 so far (a full frame counts its height); with ``PictureChange`` a still picture adds none.
    public private(set) var convertedRows: Int64 = 0
    /// Frames whose conversion converted at least one row.
    public private(set) var conversions: Int64 = 0
    private let frameRate: Int
    private let outputWidth: Int
    private let outputHeight: Int

    /// Opens an encoder for frames of about `inputWidth`x`inputHeight` at `frameRate` frames per second.
    ///
    /// The output size is `settings.width`x`settings.height` (one of them alone keeps the input's
    /// aspect ratio), or the input size; either is rounded down to even numbers, as 4:2:0 needs.
    /// CRF maps to x264's `crf`; CBR sets bitrate = maxrate = `bitsPerSecond` with a one-second
    /// VBV buffer and x264's `nal-hrd=cbr`. Throws when the settings are invalid (an unknown
    /// preset or tune, a zero size or rate) or libx264 is missing.
    ///
    /// `lowDelay` (variable frame rate, issue 11): x264 holds no frame back (no B-frames, no
    /// look-ahead, sliced instead of frame threads), because at two frames a second on a still
    /// screen a look-ahead of 15 frames would hold a picture back for 15 seconds.
    public init(settings: VideoEncoderSettings, inputWidth: Int, inputHeight: Int, frameRate: Int, id: String,
                lowDelay: Bool = false) throws(MediaError) {
        guard inputWidth >= 2, inputHeight >= 2 else {
            throw MediaError("video encoder \(id): input size \(inputWidth)x\(inputHeight) is too small")
        }
        guard frameRate > 0, frameRate <= 1000 else {
            throw MediaError("video encoder \(id): frame rate \(frameRate) is out of range (1...1000)")
        }
        guard settings.keyFrameIntervalSeconds > 0, settings.keyFrameIntervalSeconds.isFinite else {
            throw MediaError("video encoder \(id): key frame interval \(settings.keyFrameIntervalSeconds) s must be positive")
        }
        var width = settings.width ?? inputWidth
        var height = settings.height ?? inputHeight
        if let w = settings.width, settings.height == nil { height = inputHeight * w / inputWidth }
        if let h = settings.height, settings.width == nil { width = inputWidth * h / inputHeight }
        width &= ~1
        height &= ~1
        guard width >= 2, height >= 2, width <= 16384, height <= 16384 else {
            throw MediaError("video encoder \(id): output size \(width)x\(height) is out of range (2...16384)")
        }

        let codec = try CodecContext(encoderNamed: "libx264")
        let context = codec.pointer
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.time_base = AVRational(num: 1, den: Int32(frameRate))
        context.pointee.framerate = AVRational(num: Int32(frameRate), den: 1)
        context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        context.pointee.gop_size = Int32(max(1, (settings.keyFrameIntervalSeconds * Double(frameRate)).rounded()))
        context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        // 0: x264 picks its frame threads from the core count (3 on 2 cores), as FFmpeg's own
        // command line does: more frames in flight absorb load spikes instead of dropping.
        context.pointee.thread_count = 0
        context.pointee.color_range = AVCOL_RANGE_MPEG
        context.pointee.colorspace = AVCOL_SPC_BT709
        context.pointee.color_primaries = AVCOL_PRI_BT709
        context.pointee.color_trc = AVCOL_TRC_BT709

        // annexb=0: x264 writes 4-byte NAL lengths instead of start codes, so packets are AVCC
        // as they come (no copy, no rewrite) and the extradata is SPS and PPS with lengths.
        var x264Params = ["annexb=0"]
        if lowDelay { x264Params += ["bframes=0", "rc-lookahead=0", "sync-lookahead=0", "sliced-threads=1", "mbtree=0"] }
        var options = ["preset": settings.preset]
        if let tune = settings.tune { options["tune"] = tune }
        var bitRate = 0
        var rateDescription: String
        switch settings.rateControl {
        case .crf(let crf):
            guard (0...51).contains(crf) else { throw MediaError("video encoder \(id): CRF \(crf) is out of range (0...51)") }
            options["crf"] = String(crf)
            rateDescription = "crf \(crf)"
        case .cbr(let bitsPerSecond):
            guard bitsPerSecond >= 10_000 else {
                throw MediaError("video encoder \(id): bitrate \(bitsPerSecond) bit/s is too low (at least 10000)")
            }
            context.pointee.bit_rate = Int64(bitsPerSecond)
            context.pointee.rc_max_rate = Int64(bitsPerSecond)
            context.pointee.rc_buffer_size = Int32(clamping: bitsPerSecond)
            x264Params.append("nal-hrd=cbr")
            bitRate = bitsPerSecond
            rateDescription = "cbr \(bitsPerSecond) bit/s"
        }
        options["x264-params"] = x264Params.joined(separator: ":")
        let description = "\(width)x\(height) \(frameRate) fps, preset \(settings.preset)"
            + (settings.tune.map { ", tune \($0)" } ?? "") + ", \(rateDescription), gop \(context.pointee.gop_size)"
        try codec.open(options: options, describing: description)

        guard let units = AVCConfiguration.lengthPrefixedUnits(codec.extradata),
              let record = AVCConfiguration.record(from: units) else {
            throw MediaError("video encoder \(id): libx264's global header (\(codec.extradata.count) bytes) holds no length-prefixed SPS and PPS")
        }

        guard let frame = av_frame_alloc() else { throw MediaError("video encoder \(id): allocating a frame", code: shim_averror(ENOMEM)) }
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.color_range = AVCOL_RANGE_MPEG
        frame.pointee.colorspace = AVCOL_SPC_BT709
        frame.pointee.color_primaries = AVCOL_PRI_BT709
        frame.pointee.color_trc = AVCOL_TRC_BT709
        frame.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        let allocated = av_frame_get_buffer(frame, 0)
        if allocated < 0 {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
            throw MediaError("video encoder \(id): allocating a \(width)x\(height) yuv420p frame", code: allocated)
        }

        self.codec = codec
        self.frame = frame
        self.frameRate = frameRate
        self.outputWidth = width
        self.outputHeight = height
        self.id = id
        self.format = EncodedFormat(codec: .h264, timescale: Int32(frameRate), extradata: record, bitRate: bitRate,
                                    width: width, height: height, frameRate: frameRate)
    }

    /// Encodes one BGR0 frame shown at `pts` (in `1 / frameRate` seconds) and emits every packet
    /// that became ready, in decode order (usually a few frames later: x264 looks ahead).
    ///
    /// `pixels` holds `height` rows of `bytesPerRow` bytes and is only read during the call.
    /// The size may change between calls (a resized window); the picture is then scaled to the
    /// output size. `pts` must increase strictly from call to call. Each emitted sample is a
    /// `.video` ``SampleBuffer`` whose payload shares the encoder's packet memory (no copy).
    ///
    /// `change` tells how this frame differs from the previous one: only those rows are converted
    /// into the kept picture (nothing for ``PictureChange/none``); everything when the size
    /// changed, the picture is scaled, or no picture was converted yet.
    public func encode(bgr0 pixels: UnsafeRawPointer, bytesPerRow: Int, width: Int, height: Int, pts: Int64,
                       change: PictureChange = .all, emit: (SampleBuffer) -> Void) throws(MediaError) {
        guard width >= 2, height >= 2, bytesPerRow >= width * 4 else {
            throw MediaError("video encoder \(id): frame \(width)x\(height) with \(bytesPerRow) bytes per row is not valid BGR0")
        }
        if scaler?.inputWidth != width || scaler?.inputHeight != height {
            scaler = nil
            scaler = try FrameScaler(inputWidth: width, inputHeight: height, outputWidth: outputWidth, outputHeight: outputHeight)
            pictureValid = false
        }
        guard let scaler else { return }
        let writable = av_frame_make_writable(frame)
        if writable < 0 { throw MediaError("video encoder \(id): making the frame writable at pts \(pts)", code: writable) }
        try convert(pixels, bytesPerRow: bytesPerRow, width: width, height: height, change: change, scaler: scaler)
        frame.pointee.pts = pts
        // Key frames by time, not by frame count: with variable frame rate (issue 11) a still
        // screen sends two frames a second, and a GOP of N frames would then last N seconds.
        frame.pointee.pict_type = pts - lastKeyPts >= Int64(codec.pointer.pointee.gop_size) ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        if frame.pointee.pict_type == AV_PICTURE_TYPE_I { lastKeyPts = pts }
        try codec.encode(frame, what: "video encoder \(id): encoding the frame at pts \(pts)") { packet in
            emit(sample(from: packet))
        }
    }

    /// Brings the kept picture up to date with `pixels` (see `change` in ``encode(bgr0:bytesPerRow:width:height:pts:change:emit:)``).
    private func convert(_ pixels: UnsafeRawPointer, bytesPerRow: Int, width: Int, height: Int,
                         change: PictureChange, scaler: FrameScaler) throws(MediaError) {
        let sameSize = width == outputWidth && height == outputHeight
        switch change {
        case .none where pictureValid && sameSize:
            return
        case .rows(let rows) where pictureValid && sameSize && rows.reduce(0, { $0 + $1.count }) * 2 < height:
            if bands == nil { bands = try BandScaler(width: width, height: height) }
            if let bands {
                let rowCount = try bands.convert(pixels, bytesPerRow: bytesPerRow, rows: rows, into: frame)
                convertedRows += Int64(rowCount)
                if rowCount > 0 { conversions += 1 }
            }
        default:
            try scaler.scale(pixels, bytesPerRow: bytesPerRow, into: frame)
            convertedRows += Int64(height)
            conversions += 1
            pictureValid = true
        }
    }

    /// Flushes the encoder: emits the packets of frames still in its lookahead. Call once, last.
    public func finish(emit: (SampleBuffer) -> Void) throws(MediaError) {
        try codec.encode(nil, what: "video encoder \(id): flushing") { packet in
            emit(sample(from: packet))
        }
    }

    /// Wraps an owned packet (timestamps in 1/frameRate) in a sample buffer, without copying.
    private func sample(from packet: UnsafeMutablePointer<AVPacket>) -> SampleBuffer {
        let timescale = Int32(frameRate)
        let pts = packet.pointee.pts
        let dts = packet.pointee.dts == shim_av_nopts_value() ? pts : packet.pointee.dts
        let duration = packet.pointee.duration > 0 ? packet.pointee.duration : 1
        let isKey = packet.pointee.flags & AV_PKT_FLAG_KEY != 0
        let encoded = EncodedPacket(data: PacketBuffer.adopting(packet), decodeTime: MediaTime(value: dts, timescale: timescale),
                                    isKeyFrame: isKey, encoderID: id)
        return SampleBuffer(type: .video, presentationTime: MediaTime(value: pts, timescale: timescale),
                            duration: MediaTime(value: duration, timescale: timescale),
                            formatDescription: .encoded(format), payload: .packet(encoded))
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&owned)
    }
}
