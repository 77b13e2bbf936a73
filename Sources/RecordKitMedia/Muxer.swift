import CFFmpeg
import Glibc
import RecordKit

/// Writes encoded streams into a container with libavformat: a file (MP4, Matroska, FLV) or a
/// network URL (`rtmp://…`).
///
/// Streams are fixed at creation, one per ``EncodedFormat``, in the given order. Packets are
/// passed to `av_interleaved_write_frame`, which orders them across streams by decode time, so
/// each stream only needs its own packets in decode order. Packets are not copied: the
/// `AVPacket` handed to libavformat references the sample's ``MediaBuffer`` (retained until
/// libavformat lets go of the packet, which for interleaving may be after `write` returned).
///
/// Threading: not thread-safe. Use one muxer from one thread at a time.
package final class Muxer: @unchecked Sendable {
    private enum State { case open, closed }

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var state = State.open
    private let url: String
    private let timescales: [Int32]
    private let streamCount: Int
    private var lastPosition: Int64 = 0
    /// The connection written into when the muxer was given one; it is not the muxer's to close.
    private var output: NetworkOutput?

    /// Opens `url` and writes the container header.
    ///
    /// - Parameters:
    ///   - url: a file path or a URL libavformat understands (`rtmp://host/app/key`).
    ///   - container: the libavformat muxer name: `"mp4"`, `"matroska"`, `"flv"`, ….
    ///   - streams: the streams, in file order; their ``EncodedFormat/extradata`` is the global header.
    ///   - chapters: chapters written with the trailer (MP4: the Nero `chpl` list, exact to the
    ///     millisecond; Matroska: its chapters).
    ///   - options: options for the I/O layer (`rw_timeout`, …, consumed by `avio_open2`) and for
    ///     the muxer (`movflags`, `frag_duration`, `flvflags`, `flush_packets`, …, consumed by
    ///     `avformat_write_header`). An option neither knows is an error.
    ///
    /// On failure everything is closed, and a file this call created is removed.
    package init(url: String, container: String, streams: [EncodedFormat], chapters: [MediaChapter] = [],
                options: [String: String] = [:]) throws(MediaError) {
        self.url = url
        self.timescales = streams.map(\.timescale)
        self.streamCount = streams.count
        guard !streams.isEmpty else { throw MediaError("opening \(url) as \(container) failed: no streams were given") }

        var allocated: UnsafeMutablePointer<AVFormatContext>? = nil
        let made = avformat_alloc_output_context2(&allocated, nil, container, url)
        guard made >= 0, let context = allocated else {
            throw MediaError("creating a \(container) muxer for \(url)", code: made < 0 ? made : shim_averror(EINVAL))
        }
        self.context = context

        for (index, format) in streams.enumerated() {
            guard let stream = avformat_new_stream(context, nil) else {
                closeAndRemove(createdFile: false)
                throw MediaError("adding stream \(index) to \(url)", code: shim_averror(ENOMEM))
            }
            do {
                try Muxer.configure(stream, with: format)
                Muxer.tagForPlayers(stream, with: format, muxer: context)
            } catch {
                closeAndRemove(createdFile: false)
                throw MediaError("adding stream \(index) (\(format.codec.rawValue)) to \(url) failed: \(error.message)")
            }
        }

        let dictionary = OptionDictionary(options)
        var createdFile = false
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            let isPath = !url.contains("://") && !url.hasPrefix("file:")
            var status = stat()
            let existedBefore = !isPath || stat(url, &status) == 0
            let opened = avio_open2(&context.pointee.pb, url, AVIO_FLAG_WRITE, nil, &dictionary.pointer)
            if opened < 0 {
                closeAndRemove(createdFile: false)
                throw MediaError("opening \(url) for writing", code: opened)
            }
            createdFile = !existedBefore
        }
        let written = avformat_write_header(context, &dictionary.pointer)
        if written < 0 {
            closeAndRemove(createdFile: createdFile)
            throw MediaError("writing the \(container) header to \(url)", code: written)
        }
        let unknown = dictionary.remainingKeys
        if !unknown.isEmpty {
            closeAndRemove(createdFile: createdFile)
            throw MediaError("opening \(url) as \(container) failed: neither the muxer nor the I/O layer knows the option(s) \(unknown.joined(separator: ", "))")
        }
        do throws(MediaError) { try ChapterTable.append(chapters, to: context) } catch {
            closeAndRemove(createdFile: createdFile)
            throw error
        }
        lastPosition = avio_tell(context.pointee.pb)
    }

    /// Writes the container header into `output`, a connection that is already open, so that
    /// the connection (and, for RTMP, the server's acceptance of the stream) can be settled
    /// before the streams' formats are known.
    ///
    /// The muxer writes into `output` and keeps it alive, but does not own it: ``finish()`` and
    /// ``abort()`` leave it open, and its owner closes it afterwards (for RTMP that ends the
    /// publish). `name` is what messages call the output (pass a masked form of a URL that
    /// holds a secret). `options` go to the muxer (`flvflags`, `flush_packets`, …); an option it
    /// does not know is an error. Otherwise as ``init(url:container:streams:options:)``.
    package init(output: NetworkOutput, name: String, container: String, streams: [EncodedFormat],
                options: [String: String] = [:]) throws(MediaError) {
        self.url = name
        self.timescales = streams.map(\.timescale)
        self.streamCount = streams.count
        guard !streams.isEmpty else { throw MediaError("opening \(name) as \(container) failed: no streams were given") }
        guard let io = output.context else { throw MediaError("opening \(name) as \(container) failed: the connection is closed") }

        var allocated: UnsafeMutablePointer<AVFormatContext>? = nil
        let made = avformat_alloc_output_context2(&allocated, nil, container, nil)
        guard made >= 0, let context = allocated else {
            throw MediaError("creating a \(container) muxer for \(name)", code: made < 0 ? made : shim_averror(EINVAL))
        }
        self.context = context
        self.output = output
        context.pointee.pb = io
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO

        for (index, format) in streams.enumerated() {
            guard let stream = avformat_new_stream(context, nil) else {
                _ = close()
                throw MediaError("adding stream \(index) to \(name)", code: shim_averror(ENOMEM))
            }
            do {
                try Muxer.configure(stream, with: format)
                Muxer.tagForPlayers(stream, with: format, muxer: context)
            } catch {
                _ = close()
                throw MediaError("adding stream \(index) (\(format.codec.rawValue)) to \(name) failed: \(error.message)")
            }
        }
        let dictionary = OptionDictionary(options)
        let written = avformat_write_header(context, &dictionary.pointer)
        if written < 0 {
            _ = close()
            throw MediaError("writing the \(container) header to \(name)", code: written)
        }
        let unknown = dictionary.remainingKeys
        if !unknown.isEmpty {
            _ = close()
            throw MediaError("opening \(name) as \(container) failed: the muxer does not know the option(s) \(unknown.joined(separator: ", "))")
        }
        lastPosition = avio_tell(io)
    }

    /// Bytes written so far (the output's position, buffered bytes included); after
    /// ``finish()`` or ``abort()``, the final size.
    package var bytesWritten: Int64 {
        guard state == .open, let pb = context?.pointee.pb else { return lastPosition }
        return avio_tell(pb)
    }

    /// Writes one encoded packet to stream `index` (its position in `streams`).
    ///
    /// `sample.payload` must be `.packet`. Presentation and decode times are rescaled from the
    /// sample's timescales to the stream's time base; the duration likewise. A write error
    /// (for example `No space left on device`) is thrown as is; the muxer should then be
    /// finished or aborted.
    package func write(_ sample: SampleBuffer, toStream index: Int) throws(MediaError) {
        guard state == .open, let context else { throw MediaError("writing to \(url) failed: the muxer is closed") }
        guard index >= 0, index < streamCount else {
            throw MediaError("writing to \(url) failed: stream \(index) does not exist (\(streamCount) streams)")
        }
        guard case .packet(let encoded) = sample.payload else {
            throw MediaError("writing to \(url) failed: a \(sample.type.rawValue) sample without an encoded packet was given to stream \(index)")
        }
        guard let stream = context.pointee.streams[index] else { throw MediaError("writing to \(url) failed: stream \(index) is missing") }
        guard let packet = PacketBuffer.packet(referencing: encoded.data) else {
            throw MediaError("writing to \(url) failed: the \(sample.type.rawValue) packet at \(sample.presentationTime) is empty")
        }
        defer {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
        Muxer.stamp(packet, from: sample, encoded, stream: stream, index: index)
        let result = av_interleaved_write_frame(context, packet)
        if result < 0 {
            throw MediaError("writing a \(sample.type.rawValue) packet at \(sample.presentationTime.seconds) s to \(url)", code: result)
        }
    }

    /// Gives `packet` (referencing `encoded`'s bytes) its stream and `sample`'s times, rescaled
    /// to `stream`'s time base, and the key-frame flag: what every muxer of this module writes.
    static func stamp(_ packet: UnsafeMutablePointer<AVPacket>, from sample: SampleBuffer, _ encoded: EncodedPacket,
                      stream: UnsafeMutablePointer<AVStream>, index: Int) {
        let timeBase = stream.pointee.time_base
        packet.pointee.stream_index = Int32(index)
        packet.pointee.pts = rescale(sample.presentationTime, to: timeBase)
        packet.pointee.dts = rescale(encoded.decodeTime, to: timeBase)
        packet.pointee.duration = rescale(sample.duration, to: timeBase)
        if encoded.isKeyFrame { packet.pointee.flags |= AV_PKT_FLAG_KEY }
    }

    /// Writes out every packet the interleaving queue holds, then has the muxer write what it
    /// buffers (a fragmented MP4: the fragment being built, so that the packets written so far
    /// are on the output, not in memory; muxers that cannot flush ignore it), and flushes the
    /// I/O buffer. Packets written later may have earlier decode times than packets of other
    /// streams flushed here (each stream stays in decode order). Throws what libavformat reports.
    package func flushBuffered() throws(MediaError) {
        guard state == .open, let context else { throw MediaError("flushing \(url) failed: the muxer is closed") }
        let queued = av_interleaved_write_frame(context, nil)
        if queued < 0 { throw MediaError("flushing \(url) (interleaving queue)", code: queued) }
        let buffered = av_write_frame(context, nil)
        if buffered < 0 { throw MediaError("flushing \(url) (muxer)", code: buffered) }
        if let pb = context.pointee.pb { avio_flush(pb) }
    }

    /// Adds chapters before ``finish()``: Matroska writes them with its trailer (the output must
    /// be seekable); MP4 lists them (`chpl`) in its index only if it is not fragmented.
    package func addChapters(_ chapters: [MediaChapter]) throws(MediaError) {
        guard state == .open, let context else { throw MediaError("adding chapters to \(url) failed: the muxer is closed") }
        try ChapterTable.append(chapters, to: context)
    }

    /// Writes what is still queued and the trailer (MP4 index, Matroska cues), then closes the
    /// output. Idempotent: later calls do nothing. The output is closed even when this throws.
    package func finish() throws(MediaError) {
        guard state == .open, let context else { return }
        let trailer = av_write_trailer(context)
        var flushError: Int32 = 0
        if let pb = context.pointee.pb {
            avio_flush(pb)
            flushError = pb.pointee.error
            lastPosition = avio_tell(pb)
        }
        let closed = close()
        if trailer < 0 { throw MediaError("finishing \(url) (writing the trailer)", code: trailer) }
        if flushError < 0 { throw MediaError("finishing \(url) (flushing)", code: flushError) }
        if closed < 0 { throw MediaError("closing \(url)", code: closed) }
    }

    /// Closes the output without a trailer and drops queued packets: for a discarded recording
    /// or after a fatal error. What was already written stays. Idempotent.
    package func abort() {
        guard state == .open else { return }
        if let pb = context?.pointee.pb { lastPosition = avio_tell(pb) }
        _ = close()
    }

    deinit { abort() }

    // MARK: - Private

    /// Closes the I/O context (if the muxer owns one) and frees the format context.
    private func close() -> Int32 {
        state = .closed
        guard let context else { return 0 }
        var result: Int32 = 0
        if output != nil {
            // Someone else's connection: detach it, do not close it.
            context.pointee.pb = nil
        } else if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0, context.pointee.pb != nil {
            result = avio_closep(&context.pointee.pb)
        }
        avformat_free_context(context)
        self.context = nil
        return result
    }

    private func closeAndRemove(createdFile: Bool) {
        _ = close()
        if createdFile { unlink(url) }
    }

    static func rescale(_ time: MediaTime, to timeBase: AVRational) -> Int64 {
        av_rescale_q_rnd(time.value, AVRational(num: 1, den: time.timescale), timeBase,
                         AVRounding(rawValue: AV_ROUND_NEAR_INF.rawValue | AV_ROUND_PASS_MINMAX.rawValue))
    }

    /// Fills a new stream's parameters from `format`.
    static func configure(_ stream: UnsafeMutablePointer<AVStream>, with format: EncodedFormat) throws(MediaError) {
        guard format.timescale > 0 else { throw MediaError("timescale \(format.timescale) is not positive") }
        let parameters = stream.pointee.codecpar!
        stream.pointee.time_base = AVRational(num: 1, den: format.timescale)
        parameters.pointee.bit_rate = Int64(format.bitRate)
        if !format.extradata.isEmpty {
            guard let extradata = av_mallocz(format.extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
                throw MediaError("copying the global header", code: shim_averror(ENOMEM))
            }
            format.extradata.withUnsafeBytes { bytes in
                extradata.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            }
            parameters.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
            parameters.pointee.extradata_size = Int32(format.extradata.count)
        }
        switch format.codec {
        case .h264, .hevc, .av1:
            guard format.width > 0, format.height > 0 else {
                throw MediaError("video size \(format.width)x\(format.height) is not valid")
            }
            parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
            parameters.pointee.codec_id = format.codec == .h264 ? AV_CODEC_ID_H264 : format.codec == .hevc ? AV_CODEC_ID_HEVC : AV_CODEC_ID_AV1
            parameters.pointee.width = Int32(format.width)
            parameters.pointee.height = Int32(format.height)
            parameters.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            parameters.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            if format.frameRate > 0 {
                let rate = AVRational(num: Int32(format.frameRate), den: 1)
                stream.pointee.avg_frame_rate = rate
                stream.pointee.r_frame_rate = rate
            }
        case .aac, .opus:
            guard format.sampleRate > 0, format.channels > 0 else {
                throw MediaError("audio \(format.sampleRate) Hz \(format.channels) ch is not valid")
            }
            parameters.pointee.codec_type = AVMEDIA_TYPE_AUDIO
            parameters.pointee.codec_id = format.codec == .aac ? AV_CODEC_ID_AAC : AV_CODEC_ID_OPUS
            parameters.pointee.sample_rate = Int32(format.sampleRate)
            parameters.pointee.format = (format.codec == .aac ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_FLT).rawValue
            av_channel_layout_default(&parameters.pointee.ch_layout, Int32(format.channels))
            parameters.pointee.frame_size = Int32(format.frameSize > 0 ? format.frameSize : 1024)
        }
    }
}
