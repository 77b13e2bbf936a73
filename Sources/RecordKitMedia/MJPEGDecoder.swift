import CFFmpeg
import Glibc

/// Decodes the JPEG pictures of an MJPEG camera with libavcodec's `mjpeg` decoder and converts
/// them to BGR0 with libswscale, JPEG's full-range YUV (yuvj420p, yuvj422p, yuvj444p, and the
/// same with their range in the frame) read as full range, BT.601.
///
/// Memory: one decoder, one `AVFrame`, one scaler and one BGR0 picture for the life of the
/// camera, reused for every picture (the scaler and the picture are made again only when the
/// size or sampling changes); each JPEG is copied into a reused padded buffer, as libavcodec
/// reads up to `AV_INPUT_BUFFER_PADDING_SIZE` bytes past a packet's end.
///
/// Threading: not thread-safe; one thread at a time (the camera's own thread).
package final class MJPEGDecoder {
    private let context: UnsafeMutablePointer<AVCodecContext>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>
    private var input: UnsafeMutableRawBufferPointer = .init(start: nil, count: 0)
    private var scaler: OpaquePointer?
    private var scalerKey: (Int32, Int32, Int32) = (0, 0, -1)
    private var picture: UnsafeMutableRawBufferPointer = .init(start: nil, count: 0)

    /// Opens the decoder (one thread: a camera picture is small, and the camera's thread is the
    /// one to spend).
    /// - Throws: ``MediaError`` when this FFmpeg has no MJPEG decoder or no memory.
    package init() throws(MediaError) {
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_MJPEG) else {
            throw MediaError("this FFmpeg has no MJPEG decoder; install a libavcodec that includes it (Debian: libavcodec59)")
        }
        guard let context = avcodec_alloc_context3(codec) else { throw MediaError("allocating the MJPEG decoder", code: shim_averror(ENOMEM)) }
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        context.pointee.thread_count = 1
        let opened = avcodec_open2(context, codec, nil)
        guard opened >= 0, let frame = av_frame_alloc() else {
            avcodec_free_context(&owned)
            throw MediaError("opening the MJPEG decoder", code: opened < 0 ? opened : shim_averror(ENOMEM))
        }
        guard let packet = av_packet_alloc() else {
            var f: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&f)
            avcodec_free_context(&owned)
            throw MediaError("allocating a packet for the MJPEG decoder", code: shim_averror(ENOMEM))
        }
        self.context = context
        self.frame = frame
        self.packet = packet
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
        sws_freeContext(scaler)
        input.deallocate()
        picture.deallocate()
    }

    /// Decodes one JPEG and hands its BGR0 picture (rows of `bytesPerRow` bytes) to `deliver`,
    /// valid only during the call. Returns nil once delivered, else why the picture could not
    /// be decoded, without calling `deliver`: not a JPEG, cut short (no end marker: libavcodec
    /// would show the missing part grey; ``JPEGPictureLength``), or what libavcodec said.
    /// Bytes after the picture's end are ignored. libavcodec's complaints are
    /// returned, not printed: a broken camera would print them 30 times a second.
    package func decode(_ data: UnsafeRawBufferPointer,
                        deliver: (_ pixels: UnsafeRawPointer, _ bytesPerRow: Int, _ width: Int, _ height: Int) -> Void) -> String? {
        let length: Int
        switch JPEGPictureLength.of(data) {
        case .success(let n): length = n
        case .failure(.notJPEG): return "not a JPEG picture (\(data.count) bytes)"
        case .failure(.cutShort): return "a JPEG picture cut short (\(data.count) bytes, no end marker)"
        }
        // What follows the picture (padding, the rest of an older picture) is left out.
        let data = UnsafeRawBufferPointer(rebasing: data[0..<length])
        guard data.count < Int(Int32.max) - Int(AV_INPUT_BUFFER_PADDING_SIZE) else { return "a JPEG picture of \(data.count) bytes" }
        FFmpegLog.beginCapture()
        let decoded = convert(data, deliver)
        let said = FFmpegLog.takeCaptured()
        FFmpegLog.endCapture()
        if decoded { return nil }
        return said.last.map { "libavcodec: \($0)" } ?? "a JPEG picture libavcodec cannot decode (\(data.count) bytes)"
    }

    private func convert(_ data: UnsafeRawBufferPointer, _ deliver: (UnsafeRawPointer, Int, Int, Int) -> Void) -> Bool {
        guard let source = data.baseAddress else { return false }
        let padded = data.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)
        if input.count < padded {
            input.deallocate()
            input = .allocate(byteCount: padded * 5 / 4, alignment: 64)
        }
        memcpy(input.baseAddress!, source, data.count)
        memset(input.baseAddress! + data.count, 0, Int(AV_INPUT_BUFFER_PADDING_SIZE))
        packet.pointee.data = input.baseAddress!.assumingMemoryBound(to: UInt8.self)
        packet.pointee.size = Int32(data.count)
        defer {
            packet.pointee.data = nil
            packet.pointee.size = 0
        }
        // MJPEG is intra-only: one packet in, one picture out, nothing held back.
        guard avcodec_send_packet(context, packet) >= 0 else { return false }
        guard avcodec_receive_frame(context, frame) >= 0 else { return false }
        defer { av_frame_unref(frame) }
        let f = frame.pointee
        guard f.width >= 2, f.height >= 2, f.decode_error_flags == 0, f.flags & AV_FRAME_FLAG_CORRUPT == 0 else { return false }
        guard let scaler = scaler(width: f.width, height: f.height, format: f.format, fullRange: f.color_range == AVCOL_RANGE_JPEG) else {
            return false
        }
        let rowBytes = Int(f.width) * 4
        let planes: [UnsafePointer<UInt8>?] = [UnsafePointer(f.data.0), UnsafePointer(f.data.1), UnsafePointer(f.data.2), UnsafePointer(f.data.3)]
        let strides = [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3]
        var out: [UnsafeMutablePointer<UInt8>?] = [picture.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var outStrides: [Int32] = [Int32(rowBytes), 0, 0, 0]
        guard sws_scale(scaler, planes, strides, 0, f.height, &out, &outStrides) == f.height else { return false }
        deliver(UnsafeRawPointer(picture.baseAddress!), rowBytes, Int(f.width), Int(f.height))
        return true
    }

    /// The scaler from the decoded sampling to BGR0 at the same size: the kept one while size
    /// and sampling stay, a new one (and a new BGR0 picture) otherwise; nil when swscale refuses.
    private func scaler(width: Int32, height: Int32, format: Int32, fullRange: Bool) -> OpaquePointer? {
        if let scaler, scalerKey == (width, height, format) { return scaler }
        sws_freeContext(scaler)
        scaler = nil
        // The deprecated "J" formats mean full range; name the sampling and say the range instead
        // (swscale warns about the J formats and needs the range set explicitly either way).
        let (sampling, jpegRange): (AVPixelFormat, Bool) = switch AVPixelFormat(format) {
        case AV_PIX_FMT_YUVJ420P: (AV_PIX_FMT_YUV420P, true)
        case AV_PIX_FMT_YUVJ422P: (AV_PIX_FMT_YUV422P, true)
        case AV_PIX_FMT_YUVJ444P: (AV_PIX_FMT_YUV444P, true)
        case AV_PIX_FMT_YUVJ440P: (AV_PIX_FMT_YUV440P, true)
        case AV_PIX_FMT_YUVJ411P: (AV_PIX_FMT_YUV411P, true)
        default: (AVPixelFormat(format), fullRange)
        }
        guard let made = sws_getContext(width, height, sampling, width, height, AV_PIX_FMT_BGR0, SWS_BILINEAR, nil, nil, nil) else { return nil }
        let bt601 = sws_getCoefficients(SWS_CS_ITU601)
        // JPEG (JFIF) is BT.601 full range; RGB out is full range.
        _ = sws_setColorspaceDetails(made, bt601, jpegRange ? 1 : 0, bt601, 1, 0, 1 << 16, 1 << 16)
        let bytes = Int(width) * 4 * Int(height)
        if picture.count < bytes {
            picture.deallocate()
            picture = .allocate(byteCount: bytes, alignment: 64)
        }
        scaler = made
        scalerKey = (width, height, format)
        return made
    }
}
