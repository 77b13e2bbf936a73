import CFFmpeg
import RecordKit

/// A video encoder (libx264 by default; libx265, libsvtav1 or any libavcodec encoder by name)
/// that takes BGR0 frames and emits packets.
///
/// Output: yuv420p, BT.709 limited range (signalled in the stream), a key frame every
/// ``VideoEncoderSettings/keyFrameIntervalSeconds``, a global header. With libx264 the header
/// (``EncodedFormat/extradata``) is an `avcC` record and packets carry 4-byte big-endian NAL
/// lengths, what MP4, Matroska and FLV store as is; other encoders' packets are as they emit them
/// (Annex B for x265, OBUs for AV1), which the MP4 and Matroska muxers convert.
/// Packet timestamps are in units of `1 / frameRate` seconds.
///
/// Threading: not thread-safe. Use one encoder from one thread at a time (a serial queue);
/// the packets it emits are immutable and may go anywhere.
///
/// How the codec is configured and opened (options, x264's parameters, the global header) is in
/// `VideoEncoder+Codec.swift`.
package final class VideoEncoder: @unchecked Sendable {
    /// The encoded stream's description, complete before the first packet (global header included).
    package let format: EncodedFormat
    /// Identifies this encoder; every packet carries it as ``EncodedPacket/encoderID``.
    package let id: String
    /// The libavcodec encoder's name ("libx264").
    package let encoderName: String

    /// The open codec; nil after ``restart(emit:)`` until the next picture opens the fresh one
    /// (``reopenDue``), so the two never hold their memory at once and an encoder that gets no
    /// picture before the stop is never opened: SVT-AV1 waits forever to end a stream without a
    /// picture, and x265 gives such short streams decode times from memory it never set.
    /// After a failed reopening it stays nil, and every later call throws instead of crashing.
    private var openCodec: CodecContext?
    /// ``restart(emit:)`` drained and freed the codec: the next picture opens a fresh one.
    private var reopenDue = false

    /// The open codec; opens the fresh one when a restart left it to the next picture.
    private func openedCodec() throws(MediaError) -> CodecContext {
        if let openCodec { return openCodec }
        guard reopenDue else { throw MediaError("video encoder \(id): closed (restarting it failed)") }
        reopenDue = false
        let (fresh, record, _) = try Self.openCodec(settings: settings, width: outputWidth, height: outputHeight,
                                                    frameRate: frameRate, id: id, lowDelay: lowDelay)
        guard record == format.extradata else {
            throw MediaError("video encoder \(id): the restarted encoder's global header differs from the first one's")
        }
        openCodec = fresh
        return fresh
    }
    /// Frames between key frames (the codec's `gop_size`), kept for when the codec is closed.
    private var keyFrameInterval: Int64 = 1
    private let settings: VideoEncoderSettings
    private let lowDelay: Bool
    private let frame: UnsafeMutablePointer<AVFrame>
    private var scaler: FrameScaler?
    private var converter: FrameScaler?  // used by convert(...) only, which may run beside encode
    /// Memory of converted pictures, reused: a fresh 3 MB allocation per 1080p picture cost
    /// hundreds of page faults (and the kernel zeroing them) each time.
    private let picturePool: PicturePool
    private var lastKeyPts = Int64.min / 2  // the encode side only
    /// The decode time of the last packet emitted, across restarts (the encode side only).
    private var lastDts = Int64.min
    private let frameRate: Int
    private let outputWidth: Int
    private let outputHeight: Int

    /// Opens an encoder for frames of about `inputWidth`x`inputHeight` at `frameRate` frames per second.
    ///
    /// The output size is `settings.width`x`settings.height` (one of them alone keeps the input's
    /// aspect ratio), or the input size; either is rounded down to even numbers, as 4:2:0 needs.
    /// CRF maps to the encoder's `crf`; ``VideoEncoderSettings/RateControl/cbr(bitsPerSecond:)``
    /// sets bitrate = maxrate = `bitsPerSecond` with a one-second VBV buffer and no filler data
    /// (see ``VideoEncoderOptions``). Throws when the settings are invalid (an unknown preset or
    /// tune, a zero size or rate), the encoder is missing, or it cannot open (a hardware encoder
    /// without its device: the message says so).
    ///
    /// `lowDelay` (variable frame rate, a live consumer): x264 holds no frame back (no B-frames, no
    /// look-ahead, sliced instead of frame threads), because at two frames a second on a still
    /// screen a look-ahead of 15 frames would hold a picture back for 15 seconds. Key frames come
    /// by time in every mode (``VideoEncoderSettings/keyFrameIntervalSeconds``), not frame count.
    /// Otherwise x264 keeps its preset's look-ahead and B-frames but runs the look-ahead without a
    /// thread of its own (`sync-lookahead=0`): the same stream, 4 frames (at veryfast) sooner.
    package init(settings: VideoEncoderSettings, inputWidth: Int, inputHeight: Int, frameRate: Int, id: String,
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

        let encoderName = settings.resolvedEncoderName
        let (codec, record, bitRate) = try Self.openCodec(settings: settings, width: width, height: height, frameRate: frameRate,
                                                          id: id, lowDelay: lowDelay)

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

        guard let picturePool = PicturePool(width: width, height: height) else {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
            throw MediaError("video encoder \(id): allocating a picture pool", code: shim_averror(ENOMEM))
        }
        self.picturePool = picturePool
        self.openCodec = codec
        self.keyFrameInterval = Int64(codec.pointer.pointee.gop_size)
        self.reorderDelay = Int(codec.pointer.pointee.has_b_frames)
        self.frame = frame
        self.frameRate = frameRate
        self.outputWidth = width
        self.outputHeight = height
        self.id = id
        self.encoderName = encoderName
        self.settings = settings
        self.lowDelay = lowDelay
        self.format = EncodedFormat(codec: settings.codec, timescale: Int32(frameRate), extradata: record, bitRate: bitRate ?? 0,
                                    width: width, height: height, frameRate: frameRate)
    }

    /// Encodes one BGR0 frame shown at `pts` (in `1 / frameRate` seconds) and emits every packet
    /// that became ready, in decode order (usually a few frames later: x264 looks ahead).
    ///
    /// `pixels` holds `height` rows of `bytesPerRow` bytes and is only read during the call.
    /// The size may change between calls (a resized window); the picture is then scaled to the
    /// output size. `pts` must increase strictly from call to call. Each emitted sample is a
    /// `.video` ``SampleBuffer`` whose payload shares the encoder's packet memory (no copy).
    package func encode(bgr0 pixels: UnsafeRawPointer, bytesPerRow: Int, width: Int, height: Int, pts: Int64,
                       emit: (SampleBuffer) -> Void) throws(MediaError) {
        guard width >= 2, height >= 2, bytesPerRow >= width * 4 else {
            throw MediaError("video encoder \(id): frame \(width)x\(height) with \(bytesPerRow) bytes per row is not valid BGR0")
        }
        if scaler?.inputWidth != width || scaler?.inputHeight != height {
            scaler = nil
            scaler = try FrameScaler(inputWidth: width, inputHeight: height, outputWidth: outputWidth, outputHeight: outputHeight)
        }
        guard let scaler else { return }
        let writable = av_frame_make_writable(frame)
        if writable < 0 { throw MediaError("video encoder \(id): making the frame writable at pts \(pts)", code: writable) }
        try scaler.scale(pixels, bytesPerRow: bytesPerRow, into: frame)
        frame.pointee.pts = pts
        markKeyFrameByTime(frame, pts: pts)
        try openedCodec().encode(frame, what: "video encoder \(id): encoding the frame at pts \(pts)") { packet in
            emit(sample(from: packet))
        }
    }

    /// Converts one BGR0 frame (any size: scaled to the output size) to the encoder's format,
    /// without encoding it. Thread: one caller at a time, but may run concurrently with
    /// ``encode(_:pts:emit:)`` (the converter and the codec are separate). `pixels` is only read
    /// during the call.
    package func convert(bgr0 pixels: UnsafeRawPointer, bytesPerRow: Int, width: Int, height: Int) throws(MediaError) -> ConvertedPicture {
        guard width >= 2, height >= 2, bytesPerRow >= width * 4 else {
            throw MediaError("video encoder \(id): frame \(width)x\(height) with \(bytesPerRow) bytes per row is not valid BGR0")
        }
        if converter?.inputWidth != width || converter?.inputHeight != height {
            converter = nil
            converter = try FrameScaler(inputWidth: width, inputHeight: height, outputWidth: outputWidth, outputHeight: outputHeight)
        }
        guard let converter, let target = av_frame_alloc() else {
            throw MediaError("video encoder \(id): allocating a picture", code: shim_averror(ENOMEM))
        }
        let picture = ConvertedPicture(frame: target)
        let copied = av_frame_copy_props(target, frame)  // colour description, aspect ratio
        if copied < 0 { throw MediaError("video encoder \(id): describing a picture", code: copied) }
        target.pointee.format = frame.pointee.format
        target.pointee.width = frame.pointee.width
        target.pointee.height = frame.pointee.height
        let allocated = picturePool.attachBuffer(to: target)
        if allocated < 0 { throw MediaError("video encoder \(id): allocating a \(outputWidth)x\(outputHeight) picture", code: allocated) }
        try converter.scale(pixels, bytesPerRow: bytesPerRow, into: target)
        return picture
    }

    /// Encodes a converted picture shown at `pts` (in `1 / frameRate` seconds) and emits every
    /// packet that became ready, as ``encode(bgr0:bytesPerRow:width:height:pts:emit:)`` does. The
    /// same picture may be encoded again later at a later `pts` (libx264 copies its input).
    ///
    /// `asReference`: code the picture as a P picture (a reference, never a B-frame), unless a
    /// key frame is due, which wins; libx264 honours it (``H264SkipSplicer`` needs it around the
    /// slots it fills).
    ///
    /// `keyFrame`: code the picture as a key frame now, whether or not one is due (key frames by
    /// time count from it).
    package func encode(_ picture: ConvertedPicture, pts: Int64, asReference: Bool = false, keyFrame: Bool = false,
                       emit: (SampleBuffer) -> Void) throws(MediaError) {
        picture.frame.pointee.pts = pts
        markKeyFrameByTime(picture.frame, pts: pts, force: keyFrame)
        if asReference && picture.frame.pointee.pict_type != AV_PICTURE_TYPE_I { picture.frame.pointee.pict_type = AV_PICTURE_TYPE_P }
        try openedCodec().encode(picture.frame, what: "video encoder \(id): encoding the frame at pts \(pts)") { packet in
            emit(sample(from: packet))
        }
    }

    /// Key frames by time, not by frame count: with variable frame rate a still screen
    /// sends two frames a second, and a GOP of N frames would then last N seconds.
    private func markKeyFrameByTime(_ frame: UnsafeMutablePointer<AVFrame>, pts: Int64, force: Bool = false) {
        let key = force || pts - lastKeyPts >= keyFrameInterval
        frame.pointee.pict_type = key ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        if key { lastKeyPts = pts }
    }

    /// Drains the encoder (emits every packet it holds, as ``finish(emit:)``) and frees it; the
    /// next picture opens a fresh one with the same settings, so that what comes next starts
    /// with a key frame and is not held behind the old look-ahead. Key frames keep coming by
    /// time across the restart. The next ``encode(_:pts:asReference:keyFrame:emit:)`` throws
    /// when the fresh encoder's global header differs from ``format``'s (a stream cannot change
    /// it midway); a ``finish(emit:)`` before any picture has nothing to drain.
    package func restart(emit: (SampleBuffer) -> Void) throws(MediaError) {
        try finish(emit: emit)
        openCodec = nil  // x264's frames and look-ahead go before the fresh one allocates its own
        reopenDue = true
    }

    /// Whether ``closeOnStill(_:pts:emit:)`` keeps a still picture's packets: libx264 only,
    /// whose stream structure (an IDR, then a P predicted from it) is what ``StillPicture``
    /// relies on; other encoders restart as before.
    package var keepsStillPictures: Bool { encoderName == "libx264" }

    /// Codes `picture` at `pts` as a key frame, then the same picture again as a reference
    /// picture (at `pts + 1` inside the codec, never emitted), and closes the codec as
    /// ``restart(emit:)`` does. Emits every packet but the second picture's, and returns both
    /// pictures' packets for ``show(_:keyFrame:at:emit:)``; nil (after a plain key frame and
    /// restart) when the encoder does not keep still pictures or the two packets did not come
    /// out as expected. The next ``encode(_:pts:asReference:keyFrame:emit:)`` opens a fresh codec.
    package func closeOnStill(_ picture: ConvertedPicture, pts: Int64, emit: (SampleBuffer) -> Void) throws(MediaError) -> StillPicture? {
        guard keepsStillPictures else {
            try encode(picture, pts: pts, keyFrame: true, emit: emit)
            try restart(emit: emit)
            return nil
        }
        var keyFrame: MediaBuffer?
        var reference: MediaBuffer?
        func keepKey(_ sample: SampleBuffer) {
            if sample.presentationTime.value == pts, case .packet(let p) = sample.payload, p.isKeyFrame { keyFrame = p.data }
            emit(sample)
        }
        try encode(picture, pts: pts, keyFrame: true, emit: keepKey)
        func hold(_ packet: UnsafeMutablePointer<AVPacket>) {
            if packet.pointee.pts == pts + 1 {
                var owned: UnsafeMutablePointer<AVPacket>? = packet
                if packet.pointee.flags & AV_PKT_FLAG_KEY == 0 { reference = PacketBuffer.adopting(packet) } else { av_packet_free(&owned) }
            } else {
                keepKey(sample(from: packet))
            }
        }
        picture.frame.pointee.pts = pts + 1
        picture.frame.pointee.pict_type = AV_PICTURE_TYPE_P
        try openedCodec().encode(picture.frame, what: "video encoder \(id): encoding the still picture at pts \(pts + 1)", body: hold)
        try openedCodec().encode(nil, what: "video encoder \(id): flushing", body: hold)
        openCodec = nil
        reopenDue = true
        guard let keyFrame, let reference else { return nil }
        return StillPicture(keyFrame: keyFrame, reference: reference, pts: pts)
    }

    /// Shows the key frame (`keyFrame`) or the reference picture of `still` at `pts`, without
    /// the codec (which must be closed: after ``closeOnStill(_:pts:emit:)``, before the next
    /// picture is encoded). `pts` must lie after every decode time emitted; key frames by time
    /// count from a key frame shown. Returns false (nothing emitted) otherwise.
    @discardableResult
    package func show(_ still: inout StillPicture, keyFrame: Bool, at pts: Int64, emit: (SampleBuffer) -> Void) -> Bool {
        guard openCodec == nil, reopenDue, pts > lastDts, pts > still.lastShownPts else { return false }
        // Decoded up to the reorder delay early where there is room: a fresh encoder may follow
        // at the very next slot, and its B-frames need that many decode times before their
        // presentation times (with a decode time right at this one's they collide: the muxer
        // refuses the stream, EINVAL).
        let dts = max(lastDts + 1, pts - Int64(reorderDelay))
        lastDts = dts
        if keyFrame { lastKeyPts = pts }
        still.lastShownPts = pts
        still.referenceShown = !keyFrame
        let timescale = Int32(frameRate)
        let packet = EncodedPacket(data: keyFrame ? still.keyFrame : still.reference, decodeTime: MediaTime(value: dts, timescale: timescale),
                                   isKeyFrame: keyFrame, encoderID: id)
        emit(SampleBuffer(type: .video, presentationTime: MediaTime(value: pts, timescale: timescale), duration: MediaTime(value: 1, timescale: timescale),
                          formatDescription: .encoded(format), payload: .packet(packet)))
        return true
    }

    /// Frames the decoder must hold back to reorder (`has_b_frames`: 2 for x264 with a B-pyramid).
    package let reorderDelay: Int

    /// Whether a key frame is due at `pts` (key frames come by time): the next frame encoded at
    /// `pts` would be one.
    package func isKeyFrameDue(at pts: Int64) -> Bool { pts - lastKeyPts >= keyFrameInterval }

    /// The first slot at which a key frame is due by time.
    package var nextKeyFrameSlot: Int64 { lastKeyPts + keyFrameInterval }

    /// Flushes the encoder: emits the packets of frames still in its lookahead. Call once, last.
    package func finish(emit: (SampleBuffer) -> Void) throws(MediaError) {
        if reopenDue { return }  // restarted, and no picture since: nothing held
        try openedCodec().encode(nil, what: "video encoder \(id): flushing") { packet in
            emit(sample(from: packet))
        }
    }

    /// Wraps an owned packet (timestamps in 1/frameRate) in a sample buffer, without copying.
    private func sample(from packet: UnsafeMutablePointer<AVPacket>) -> SampleBuffer {
        let timescale = Int32(frameRate)
        let pts = packet.pointee.pts
        var dts = packet.pointee.dts == shim_av_nopts_value() ? pts : packet.pointee.dts
        // A restarted x264 with B-frames starts its decode times before its first picture by its
        // reorder delay measured in its first pictures' timestamps: at variable frame rate on a
        // still screen (pictures half a second apart) that reaches back before the packets the
        // old encoder emitted last. Decode times must increase, so they are moved just past the
        // last one; the order and every presentation time stay (a decoder needs nothing else).
        // A restarted x265 that is flushed before it had its reorder delay's worth of pictures
        // (a still screen: two pictures, then the stop) computes its decode times by subtracting
        // a delay it never set (it does at its third picture): garbage, 0x4D4D4D4D4D4D4D7B once.
        // A packet is never decoded after it is shown, so such a time is replaced the same way.
        if dts <= lastDts || dts > pts { dts = min(lastDts + 1, pts) }
        lastDts = max(lastDts, dts)
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
