import CFFmpeg
import RecordKit
import RecordKitSupport

/// Opening the codec of a ``VideoEncoder``: at creation, and again at each restart.
extension VideoEncoder {
    /// Opens the codec for `settings` at `width`x`height`; returns it, its global header (an
    /// `avcC` record for libx264) and the bit rate asked for, if any.
    static func openCodec(settings: VideoEncoderSettings, width: Int, height: Int, frameRate: Int, id: String,
                                  lowDelay: Bool) throws(MediaError) -> (CodecContext, [UInt8], Int?) {
        let encoderName = settings.resolvedEncoderName
        let codec: CodecContext
        do throws(MediaError) { codec = try CodecContext(encoderNamed: encoderName) } catch {
            throw MediaError("video encoder \(id): \(error.message)")
        }
        guard let encoderCodec = VideoEncoderOptions.codec(ofEncoder: encoderName), encoderCodec == settings.codec else {
            throw MediaError("video encoder \(id): \(encoderName) does not encode \(settings.codec.rawValue)")
        }
        let context = codec.pointer
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.time_base = AVRational(num: 1, den: Int32(frameRate))
        context.pointee.framerate = AVRational(num: Int32(frameRate), den: 1)
        context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        context.pointee.gop_size = Int32(max(1, (settings.keyFrameIntervalSeconds * Double(frameRate)).rounded()))
        context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        // 0: the encoder picks its threads from the core count (x264: 3 frame threads on 2
        // cores), as FFmpeg's own command line does: more frames in flight absorb load spikes.
        context.pointee.thread_count = 0
        context.pointee.color_range = AVCOL_RANGE_MPEG
        context.pointee.colorspace = AVCOL_SPC_BT709
        context.pointee.color_primaries = AVCOL_PRI_BT709
        context.pointee.color_trc = AVCOL_TRC_BT709

        var plan = try VideoEncoderOptions(settings: settings, encoderName: encoderName, id: id)
        if lowDelay && encoderName == "libx264" {
            plan.options["x264-params", default: ""] += ":bframes=0:rc-lookahead=0:sync-lookahead=0:sliced-threads=1:mbtree=0"
        } else if encoderName == "libx264" {
            // No look-ahead thread (x264's default buffers bframes + 1 more frames for it: 133 ms
            // at 30 fps with veryfast's 3 B-frames). The same bits come out (same frame types,
            // same mbtree; checked byte for byte), the look-ahead runs on the encode queue's
            // thread instead; what a live viewer gains is 4 frames less delay (docs/PREVIEW.md).
            plan.options["x264-params", default: ""] += ":sync-lookahead=0"
        }
        if let bitsPerSecond = plan.bitRate {
            context.pointee.bit_rate = Int64(bitsPerSecond)
            context.pointee.rc_max_rate = Int64(bitsPerSecond)
            context.pointee.rc_buffer_size = Int32(clamping: bitsPerSecond)
        }
        let description = "\(width)x\(height) \(frameRate) fps, " + plan.description + ", gop \(context.pointee.gop_size)"
        do throws(MediaError) {
            // SVT-AV1 run as root makes its threads, and this one, real-time (FIFO 99): not in a recorder.
            defer { RealtimeThreads.demoteAll() }
            try codec.open(options: plan.options, describing: description)
        } catch {
            throw MediaError("video encoder \(id): " + error.message + VideoEncoderOptions.hint(forEncoder: encoderName))
        }

        let record: [UInt8]
        if encoderName == "libx264" {
            guard let units = AVCConfiguration.lengthPrefixedUnits(codec.extradata),
                  let avcC = AVCConfiguration.record(from: units) else {
                throw MediaError("video encoder \(id): libx264's global header (\(codec.extradata.count) bytes) holds no length-prefixed SPS and PPS")
            }
            record = avcC
        } else {
            // Annex B (x265, hardware H.264/HEVC) or an AV1 sequence header: the muxers convert.
            record = codec.extradata
        }
        return (codec, record, plan.bitRate)
    }
}
