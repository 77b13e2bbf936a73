import CFFmpeg
import Glibc
import RecordKit

/// Muxes encoded streams into fragmented MP4 in memory, for Media Source Extensions in a web
/// page: an init segment (`ftyp` + empty `moov`) and then one fragment (`moof` + `mdat`) per
/// video frame, each with its absolute decode time (`tfdt`), so a player can start at any
/// fragment that begins with a key frame.
///
/// libavformat's `mp4` muxer does the boxes (`movflags` `frag_custom+empty_moov+default_base_moof`)
/// and writes into an `AVIOContext` whose write callback collects the bytes; nothing touches a
/// file or the network. Packets are not copied on the way in (they reference the sample's
/// buffer) and are written with `av_write_frame`, not interleaved: the caller hands them in
/// timeline order already, and interleaving would hold a frame back until the audio caught up.
/// A fragment is cut after every video packet, so it holds that frame and the audio that came
/// since the previous one: latency is one frame.
///
/// Threading: not thread-safe; one writer per thread at a time.
package final class FragmentedMP4Writer: @unchecked Sendable {
    /// One `moof` + `mdat` pair.
    package struct Fragment: Sendable {
        /// The bytes.
        package let bytes: [UInt8]
        /// Whether its video frame is a key frame (a player may start here).
        package let isKeyFrame: Bool
    }

    /// `ftyp` + `moov`: what a player needs before any fragment.
    package private(set) var initSegment: [UInt8] = []

    private let sink = ByteSink()
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let streamCount: Int
    private var pendingKey = false
    private var wroteVideo = false

    /// Opens the muxer for `streams` (in track order) and writes the init segment.
    package init(streams: [EncodedFormat]) throws(MediaError) {
        streamCount = streams.count
        guard !streams.isEmpty else { throw MediaError("fragmented MP4: no streams were given") }
        var allocated: UnsafeMutablePointer<AVFormatContext>? = nil
        let made = avformat_alloc_output_context2(&allocated, nil, "mp4", nil)
        guard made >= 0, let context = allocated else {
            throw MediaError("creating an mp4 muxer for the live preview", code: made < 0 ? made : shim_averror(EINVAL))
        }
        self.context = context
        let bufferSize: Int32 = 64 * 1024
        guard let buffer = av_malloc(Int(bufferSize)),
              let io = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), bufferSize, 1,
                                          Unmanaged.passUnretained(sink).toOpaque(), nil, { opaque, data, size in
                                              guard let opaque, let data, size > 0 else { return size }
                                              Unmanaged<ByteSink>.fromOpaque(opaque).takeUnretainedValue()
                                                  .bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(size)))
                                              return size
                                          }, nil)
        else {
            avformat_free_context(context)
            self.context = nil
            throw MediaError("allocating the live preview's output buffer", code: shim_averror(ENOMEM))
        }
        context.pointee.pb = io
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        for (index, format) in streams.enumerated() {
            guard let stream = avformat_new_stream(context, nil) else {
                close()
                throw MediaError("adding stream \(index) to the live preview", code: shim_averror(ENOMEM))
            }
            do { try Muxer.configure(stream, with: format) } catch {
                close()
                throw MediaError("adding stream \(index) (\(format.codec.rawValue)) to the live preview failed: \(error.message)")
            }
        }
        let options = OptionDictionary(["movflags": "frag_custom+empty_moov+default_base_moof"])
        let written = avformat_write_header(context, &options.pointer)
        guard written >= 0 else {
            close()
            throw MediaError("writing the live preview's init segment", code: written)
        }
        avio_flush(io)
        initSegment = sink.take()
    }

    /// Adds `sample` (an encoded packet) to stream `index`; after a video packet, returns the
    /// fragment that ends with it. Throws what libavformat reports.
    package func append(_ sample: SampleBuffer, toStream index: Int, isVideo: Bool) throws(MediaError) -> Fragment? {
        guard let context, index >= 0, index < streamCount, let stream = context.pointee.streams[index] else {
            throw MediaError("live preview: stream \(index) does not exist or the muxer is closed")
        }
        // Audio before the first video frame is left out. With `empty_moov` and no edit list,
        // movenc makes the first packet written time zero (avoid_negative_ts make_zero); were that
        // audio, a first video frame decoded before it (B-frames: decode time < presentation
        // time) would come out negative and movenc would abort the process ("Assertion next_dts
        // >= 0 failed at movenc.c", seen at constant frame rate). What is left out is the live
        // picture's sound while the encoder's first frame was on its way (a fraction of a
        // second); a viewer starts at a key frame anyway, and the file keeps everything.
        if !isVideo && !wroteVideo { return nil }
        if isVideo { wroteVideo = true }
        guard case .packet(let encoded) = sample.payload, let packet = PacketBuffer.packet(referencing: encoded.data) else {
            return nil
        }
        defer {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
        Muxer.stamp(packet, from: sample, encoded, stream: stream, index: index)
        let result = av_write_frame(context, packet)
        guard result >= 0 else { throw MediaError("muxing a \(sample.type.rawValue) packet for the live preview", code: result) }
        guard isVideo else { return nil }
        // Flush: writes the fragment holding everything since the last flush.
        let flushed = av_write_frame(context, nil)
        guard flushed >= 0 else { throw MediaError("cutting a live preview fragment", code: flushed) }
        avio_flush(context.pointee.pb)
        let bytes = sink.take()
        return bytes.isEmpty ? nil : Fragment(bytes: bytes, isKeyFrame: encoded.isKeyFrame)
    }

    /// Frees the muxer (no trailer: nothing reads past the last fragment).
    package func close() {
        guard let context else { return }
        if let io = context.pointee.pb {
            av_free(io.pointee.buffer)
            var owned: UnsafeMutablePointer<AVIOContext>? = io
            avio_context_free(&owned)
            context.pointee.pb = nil
        }
        avformat_free_context(context)
        self.context = nil
    }

    deinit { close() }
}

/// Where the write callback puts the muxer's bytes.
private final class ByteSink {
    var bytes: [UInt8] = []

    func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}
