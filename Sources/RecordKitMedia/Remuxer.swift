import CFFmpeg
import Glibc

/// Copies every audio and video stream of one file into another container without
/// re-encoding, for example to turn a fragmented MP4 into a plain one with `moov` first.
package enum Remuxer {
    /// Stream-copies `input` into `output` (a path), written as `container` (`"mp4"`,
    /// `"matroska"`, …) with muxer `options` (for MP4, `["movflags": "+faststart"]` puts the
    /// index before the media). Timestamps are kept. Reads the input once and, with faststart,
    /// rewrites the output once more; needs room for a second copy of the file.
    ///
    /// The output carries `chapters` (an end past the input's duration is clamped to it), or the
    /// input's own chapters when `chapters` is empty.
    ///
    /// On failure the partial output is removed and the input is left untouched.
    package static func remux(from input: String, to output: String, container: String, options: [String: String],
                             chapters: [MediaChapter] = []) throws(MediaError) {
        var source: UnsafeMutablePointer<AVFormatContext>? = nil
        let opened = avformat_open_input(&source, input, nil, nil)
        guard opened >= 0, let source else { throw MediaError("opening \(input) for remuxing", code: opened) }
        defer {
            var owned: UnsafeMutablePointer<AVFormatContext>? = source
            avformat_close_input(&owned)
        }
        let probed = avformat_find_stream_info(source, nil)
        if probed < 0 { throw MediaError("reading the streams of \(input)", code: probed) }

        var allocated: UnsafeMutablePointer<AVFormatContext>? = nil
        let made = avformat_alloc_output_context2(&allocated, nil, container, output)
        guard made >= 0, let destination = allocated else {
            throw MediaError("creating a \(container) muxer for \(output)", code: made < 0 ? made : shim_averror(EINVAL))
        }
        var fileOpen = false
        var succeeded = false
        defer {
            if fileOpen { avio_closep(&destination.pointee.pb) }
            avformat_free_context(destination)
            if !succeeded { unlink(output) }
        }

        // Map input streams to output streams; -1 for streams that are not copied.
        var mapping = [Int32](repeating: -1, count: Int(source.pointee.nb_streams))
        var copied: Int32 = 0
        for index in 0..<Int(source.pointee.nb_streams) {
            guard let inStream = source.pointee.streams[index] else { continue }
            let type = inStream.pointee.codecpar.pointee.codec_type
            guard type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO || type == AVMEDIA_TYPE_SUBTITLE else { continue }
            guard let outStream = avformat_new_stream(destination, nil) else {
                throw MediaError("adding stream \(index) to \(output)", code: shim_averror(ENOMEM))
            }
            let parameters = avcodec_parameters_copy(outStream.pointee.codecpar, inStream.pointee.codecpar)
            if parameters < 0 { throw MediaError("copying the parameters of stream \(index) of \(input)", code: parameters) }
            outStream.pointee.codecpar.pointee.codec_tag = 0
            Muxer.tagHEVCForPlayers(outStream, muxer: destination)
            outStream.pointee.time_base = inStream.pointee.time_base
            outStream.pointee.avg_frame_rate = inStream.pointee.avg_frame_rate
            outStream.pointee.r_frame_rate = inStream.pointee.r_frame_rate
            outStream.pointee.disposition = inStream.pointee.disposition
            mapping[index] = copied
            copied += 1
        }
        guard copied > 0 else { throw MediaError("remuxing \(input) failed: it has no audio or video stream") }

        if destination.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            let io = avio_open2(&destination.pointee.pb, output, AVIO_FLAG_WRITE, nil, nil)
            if io < 0 { throw MediaError("opening \(output) for writing", code: io) }
            fileOpen = true
        }
        let dictionary = OptionDictionary(options)
        let header = avformat_write_header(destination, &dictionary.pointer)
        if header < 0 { throw MediaError("writing the \(container) header to \(output)", code: header) }
        let unknown = dictionary.remainingKeys
        if !unknown.isEmpty {
            throw MediaError("remuxing \(input) failed: the \(container) muxer does not know the option(s) \(unknown.joined(separator: ", "))")
        }
        // After the header: MP4 then lists them exactly in its `chpl` (a QuickTime chapter track,
        // made for chapters known before the header, would start the first one at zero).
        // Chapters given without knowing the media's length (a recovered file's last one) end with it.
        let durationNs = source.pointee.duration > 0 ? source.pointee.duration * 1000 : Int64.max
        let clamped = chapters.map { chapter in
            var c = chapter
            if c.end.nanoseconds > durationNs { c.end = .nanoseconds(max(durationNs, c.start.nanoseconds)) }
            return c
        }
        try ChapterTable.append(chapters.isEmpty ? ChapterTable.read(source) : clamped, to: destination)

        guard let packet = av_packet_alloc() else { throw MediaError("allocating a packet", code: shim_averror(ENOMEM)) }
        defer {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
        while true {
            let read = av_read_frame(source, packet)
            if read == shim_averror_eof() { break }
            if read < 0 { throw MediaError("reading \(input)", code: read) }
            let inIndex = Int(packet.pointee.stream_index)
            guard inIndex < mapping.count, mapping[inIndex] >= 0,
                  let inStream = source.pointee.streams[inIndex],
                  let outStream = destination.pointee.streams[Int(mapping[inIndex])] else {
                av_packet_unref(packet)
                continue
            }
            av_packet_rescale_ts(packet, inStream.pointee.time_base, outStream.pointee.time_base)
            packet.pointee.stream_index = mapping[inIndex]
            packet.pointee.pos = -1
            let written = av_interleaved_write_frame(destination, packet)
            if written < 0 { throw MediaError("writing \(output)", code: written) }
        }
        let trailer = av_write_trailer(destination)
        if trailer < 0 { throw MediaError("finishing \(output)", code: trailer) }
        succeeded = true
        let closed = avio_closep(&destination.pointee.pb)
        fileOpen = false
        if closed < 0 {
            succeeded = false
            throw MediaError("closing \(output)", code: closed)
        }
    }
}
