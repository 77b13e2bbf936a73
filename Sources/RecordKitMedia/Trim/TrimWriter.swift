import CFFmpeg
import RecordKit

/// The second pass of a trim: reads the input once more in file order, feeds the re-encoders,
/// and writes the head, copied and tail video packets and the kept audio packets to the
/// temporary output (``AtomicOutputFile/temporaryPath``), with the merged `avcC` record and the
/// kept chapters. Not thread-safe; one trim, its caller's thread.
final class TrimWriter {
    struct Written {
        var audioTracks = 0
        var audioPackets = 0
        var chapters = 0
    }

    private let input: TrimInput
    private let output: UnsafeMutablePointer<AVFormatContext>
    private let plan: TrimPlan
    private let temporaryPath: String
    private var head: SegmentReencoder?
    private var tail: SegmentReencoder?
    /// Input stream index → output stream index (video first, then each audio stream).
    private var mapping: [Int: Int32] = [:]
    private var fileOpen = false
    private var written = Written()
    private var lastVideoDts = Int64.min
    /// Whether the container hides negative timestamps with an edit list (MP4, MOV).
    private var editList = false

    /// The PPS ids the copied packets use (nil: unknown, keep every input parameter set).
    private let copiedPictureSetIDs: Set<Int>?

    init(inputPath: String, temporaryPath: String, format: UnsafePointer<AVOutputFormat>, plan: TrimPlan,
         chapters: [MediaChapter], copiedPictureSetIDs: Set<Int>?) throws(MovieTrimError) {
        input = try TrimInput(path: inputPath)
        self.plan = plan
        self.copiedPictureSetIDs = copiedPictureSetIDs
        self.temporaryPath = temporaryPath
        var allocated: UnsafeMutablePointer<AVFormatContext>? = nil
        let made = avformat_alloc_output_context2(&allocated, format, nil, temporaryPath)
        guard made >= 0, let output = allocated else {
            throw .outputUnwritable(path: temporaryPath, reason: "creating the muxer: \(MediaError.describe(made))")
        }
        self.output = output
        do throws(MediaError) {
            try openReencoders()
            try addStreams()
            try writeHeader(chapters: chapters)
        } catch {
            throw .failed(message: error.message)
        }
    }

    /// The head and tail re-encoders, with SPS/PPS ids the input does not use.
    private func openReencoders() throws(MediaError) {
        guard plan.head != nil || plan.tail != nil else { return }
        guard let original = AVCParameterSets(avcC: MovieTrimmer.extradata(of: input.video)), var id = original.freeID else {
            throw MediaError("the H.264 header uses every parameter-set id; cannot add the re-encoded run's")
        }
        if let run = plan.head {
            head = try SegmentReencoder(stream: input.video, frames: run.frames, offset: plan.cutPts, parameterSetID: id)
        }
        if let run = plan.tail {
            let candidate = try SegmentReencoder(stream: input.video, frames: run.frames, offset: plan.cutPts, parameterSetID: id)
            if let head, head.parameterSets != candidate.parameterSets {
                // Not the same headers (should not happen with the same settings): give the tail ids of its own.
                let used = AVCParameterSets(sequenceSets: original.sequenceSets + head.parameterSets.sequenceSets,
                                            pictureSets: original.pictureSets + head.parameterSets.pictureSets)
                guard let next = used.freeID else { throw MediaError("no parameter-set id left for the re-encoded end") }
                id = next
                tail = try SegmentReencoder(stream: input.video, frames: run.frames, offset: plan.cutPts, parameterSetID: id)
            } else {
                tail = candidate
            }
        }
    }

    private func addStreams() throws(MediaError) {
        for index in [input.videoIndex] + input.audioIndices {
            let inStream = input.stream(index)
            guard let outStream = avformat_new_stream(output, nil) else { throw MediaError("adding a stream", code: shim_averror(ENOMEM)) }
            let copied = avcodec_parameters_copy(outStream.pointee.codecpar, inStream.pointee.codecpar)
            if copied < 0 { throw MediaError("copying the parameters of stream \(index)", code: copied) }
            outStream.pointee.codecpar.pointee.codec_tag = 0
            outStream.pointee.time_base = inStream.pointee.time_base
            outStream.pointee.avg_frame_rate = inStream.pointee.avg_frame_rate
            outStream.pointee.r_frame_rate = inStream.pointee.r_frame_rate
            outStream.pointee.disposition = inStream.pointee.disposition
            av_dict_copy(&outStream.pointee.metadata, inStream.pointee.metadata, 0)
            if index == input.videoIndex {
                Muxer.tagHEVCForPlayers(outStream, muxer: output)
                try replaceExtradata(outStream)
            } else {
                // Audio cut mid-stream has no encoder priming to skip.
                if plan.cutPts != plan.zeroPts { outStream.pointee.codecpar.pointee.initial_padding = 0 }
                written.audioTracks += 1
            }
            mapping[index] = Int32(mapping.count)
        }
    }

    /// With re-encoded runs: one `avcC` holding the input's parameter sets that copied packets use, and theirs.
    private func replaceExtradata(_ stream: UnsafeMutablePointer<AVStream>) throws(MediaError) {
        let added = [head, tail].compactMap { $0?.parameterSets }
        guard !added.isEmpty, let original = AVCParameterSets(avcC: MovieTrimmer.extradata(of: input.video)) else { return }
        var extra = AVCParameterSets(sequenceSets: [], pictureSets: [])
        for sets in added {
            for sps in sets.sequenceSets where !extra.sequenceSets.contains(sps) { extra.sequenceSets.append(sps) }
            for pps in sets.pictureSets where !extra.pictureSets.contains(pps) { extra.pictureSets.append(pps) }
        }
        // Only the input's sets a copied packet still uses (so re-trimming does not pile them up).
        let kept = copiedPictureSetIDs.map { original.keeping(pictureIDs: $0) } ?? original
        guard let record = kept.merged(with: extra) else { throw MediaError("merging the H.264 parameter sets") }
        let parameters = stream.pointee.codecpar!
        av_freep(&parameters.pointee.extradata)
        guard let memory = av_mallocz(record.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw MediaError("allocating the H.264 header", code: shim_averror(ENOMEM))
        }
        let bytes = memory.assumingMemoryBound(to: UInt8.self)
        bytes.update(from: record, count: record.count)
        parameters.pointee.extradata = bytes
        parameters.pointee.extradata_size = Int32(record.count)
    }

    private func writeHeader(chapters: [MediaChapter]) throws(MediaError) {
        if output.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            let io = avio_open2(&output.pointee.pb, temporaryPath, AVIO_FLAG_WRITE, nil, nil)
            if io < 0 { throw MediaError("creating \(temporaryPath)", code: io) }
            fileOpen = true
        }
        let name = String(cString: output.pointee.oformat.pointee.name)
        editList = name == "mp4" || name == "mov"
        let options = OptionDictionary(name == "mp4" || name == "mov" ? ["movflags": "+faststart"] : [:])
        let header = avformat_write_header(output, &options.pointer)
        if header < 0 { throw MediaError("writing the \(name) header", code: header) }
        let timeBase = input.video.pointee.time_base
        func time(_ pts: Int64) -> MediaTime {
            .nanoseconds(av_rescale_q(pts, timeBase, AVRational(num: 1, den: 1_000_000_000)))
        }
        let from = time(plan.cutPts).nanoseconds
        let to = time(plan.endPts).nanoseconds
        let kept = chapters.filter { $0.end.nanoseconds > from && $0.start.nanoseconds < to }.map {
            MediaChapter(title: $0.title, start: .nanoseconds(max($0.start.nanoseconds, from) - from),
                         end: .nanoseconds(min($0.end.nanoseconds, to) - from))
        }
        try ChapterTable.append(kept, to: output)
        written.chapters = kept.count
    }

    /// Copies and re-encodes; returns what was written. The caller commits the file.
    func run() throws(MovieTrimError) -> Written {
        do throws(MediaError) {
            try copyAll()
            let trailer = av_write_trailer(output)
            if trailer < 0 { throw MediaError("finishing the output", code: trailer) }
            let closed = avio_closep(&output.pointee.pb)
            fileOpen = false
            if closed < 0 { throw MediaError("closing the output", code: closed) }
        } catch {
            throw .failed(message: error.message)
        }
        return written
    }

    private func copyAll() throws(MediaError) {
        guard let packet = av_packet_alloc() else { throw MediaError("allocating a packet", code: shim_averror(ENOMEM)) }
        defer {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
        let videoBase = input.video.pointee.time_base
        var audioWindow: [Int: (from: Int64, to: Int64)] = [:]
        for index in input.audioIndices {
            let base = input.stream(index).pointee.time_base
            audioWindow[index] = (av_rescale_q(plan.cutPts, videoBase, base), av_rescale_q(plan.endPts, videoBase, base))
        }
        var videoCount = 0
        var headDone = head == nil
        var tailDone = tail == nil
        while true {
            let read = av_read_frame(input.context, packet)
            if read == shim_averror_eof() { break }
            if read < 0 { throw MediaError("reading \(input.path)", code: read) }
            defer { av_packet_unref(packet) }
            let index = Int(packet.pointee.stream_index)
            if index == input.videoIndex {
                let position = videoCount
                videoCount += 1
                if let head, !headDone, let run = plan.head, run.decode.contains(position) {
                    try head.decode(packet)
                    if position == run.decode.upperBound { try flush(head, run); headDone = true }
                }
                if let tail, !tailDone, let run = plan.tail, run.decode.contains(position) {
                    try tail.decode(packet)
                    if position == run.decode.upperBound { try flush(tail, run); tailDone = true }
                }
                if let copy = plan.copy, copy.contains(position) {
                    if packet.pointee.dts == shim_av_nopts_value() { packet.pointee.dts = packet.pointee.pts }
                    packet.pointee.duration = plan.duration(ofFrameAt: packet.pointee.pts, input: packet.pointee.duration)
                    packet.pointee.pts -= plan.cutPts
                    packet.pointee.dts -= plan.cutPts
                    lastVideoDts = packet.pointee.dts
                    try write(packet, from: index)
                }
            } else if let window = audioWindow[index] {
                let pts = packet.pointee.pts == shim_av_nopts_value() ? packet.pointee.dts : packet.pointee.pts
                // From the movie's first frame on, the encoder's priming packets (before zero) stay too.
                // Into MP4, also the packet the cut falls in: its start gets a negative time that the
                // muxer's edit list trims, so the audio starts at zero to the sample, in sync.
                let reaches = editList && pts + max(packet.pointee.duration, 1) > window.from
                guard pts >= window.from || reaches || plan.cutPts == plan.zeroPts, pts < window.to else { continue }
                packet.pointee.pts = pts - window.from
                if packet.pointee.dts != shim_av_nopts_value() { packet.pointee.dts -= window.from }
                written.audioPackets += 1
                try write(packet, from: index)
            }
        }
        if let head, !headDone, let run = plan.head { try flush(head, run) }
        if let tail, !tailDone, let run = plan.tail { try flush(tail, run) }
    }

    /// Writes a re-encoder's packets with decode times `pts - delay`, kept after the last written,
    /// and the durations their frames had in the input.
    private func flush(_ reencoder: SegmentReencoder, _ run: TrimPlan.Reencode) throws(MediaError) {
        try reencoder.finish()
        for packet in reencoder.packets {
            let pts = packet.pointee.pts + plan.cutPts
            if let duration = run.durations[pts] { packet.pointee.duration = plan.duration(ofFrameAt: pts, input: duration) }
            let dts = max(packet.pointee.pts - plan.delay, lastVideoDts == Int64.min ? Int64.min : lastVideoDts + 1)
            packet.pointee.dts = min(dts, packet.pointee.pts)
            lastVideoDts = packet.pointee.dts
            try write(packet, from: input.videoIndex)
        }
    }

    private func write(_ packet: UnsafeMutablePointer<AVPacket>, from index: Int) throws(MediaError) {
        guard let target = mapping[index], let outStream = output.pointee.streams[Int(target)] else { return }
        av_packet_rescale_ts(packet, input.stream(index).pointee.time_base, outStream.pointee.time_base)
        packet.pointee.stream_index = target
        packet.pointee.pos = -1
        let result = av_interleaved_write_frame(output, packet)
        if result < 0 { throw MediaError("writing the output", code: result) }
    }

    deinit {
        head = nil
        tail = nil
        if fileOpen { avio_closep(&output.pointee.pb) }
        avformat_free_context(output)
    }
}
