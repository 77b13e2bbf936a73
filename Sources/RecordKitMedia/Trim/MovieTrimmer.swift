import CFFmpeg
import Foundation

/// Lossless trimming of a finished recording (docs/TRIM.md): keeps the span between two
/// instants, copying the compressed video and audio as they are wherever it can.
package enum MovieTrimmer {
    /// Writes the part of the movie at `input` from `start` to `end` to `output`.
    ///
    /// `start` and `end` are seconds from the movie's start (the presentation time of its first
    /// video frame is 0). The output's first frame is the one on screen at `start` (a millisecond
    /// of tolerance, so a trim point from a web page's `currentTime` lands on its frame); its
    /// last is the last frame that starts before `end`. An `end` past the movie's end means the end.
    ///
    /// * A cut at a key frame is a pure remux: every kept packet is copied byte for byte.
    /// * Elsewhere (H.264), only the frames from the cut to the next key frame are re-encoded
    ///   (libx264, same profile, level, size, pixel format and time base, with their own SPS/PPS
    ///   under a parameter-set id the input does not use, all listed in the one `avcC` record), and
    ///   the rest is copied. When the end falls inside a run of B-frames whose reference lies past
    ///   the end, those last few frames are re-encoded too.
    /// * Other codecs (HEVC, AV1) are not re-encoded: the copy starts at the key frame before
    ///   `start` (``Report/method`` is ``Method/keyFrameCut`` and ``Report/note`` says so); in an
    ///   MP4/MOV an edit list hides the frames before `start`, in Matroska the cut moves back.
    ///
    /// Every audio stream is kept and shifted by the same instant as the video (in sync), up to the
    /// end of the last kept frame (within one audio frame). Into MP4/MOV the audio frame the cut
    /// falls in is kept too and trimmed by the edit list, so audio starts at zero to the sample;
    /// into Matroska it starts with the first audio frame at or after the cut (within 21 ms of AAC). Video timestamps start at zero. Chapters (MP4 `chpl`,
    /// Matroska) that overlap the kept span are kept, clipped and shifted. Other streams (data,
    /// subtitles, a second video stream) are dropped.
    ///
    /// The container follows `output`'s extension (`.mp4`/`.mov`: with the index first,
    /// `.mkv`). The file is written beside `output` under a temporary name, synced and renamed
    /// into place, replacing an existing file at `output` (callers that must not overwrite check
    /// first); on any error nothing is left behind.
    ///
    /// Threading: synchronous and blocking (reads the input twice and decodes/encodes up to two
    /// GOPs); call it from a thread of your own, never the cooperative pool. Independent calls
    /// may run at once.
    package static func trim(input: URL, start: Double, end: Double, output: URL) throws(MovieTrimError) -> Report {
        try trim(input: input, start: start, end: end, output: output, replacingExisting: true)
    }

    /// ``trim(input:start:end:output:)``, and with `replacingExisting` false an existing
    /// `output` is an error (``MovieTrimError/outputUnwritable(path:reason:)``, "it exists") and
    /// is left untouched, even one created while the trim ran (the finished file is linked into
    /// place, which fails on an existing name, instead of renamed over it).
    package static func trim(input: URL, start: Double, end: Double, output: URL,
                            replacingExisting: Bool) throws(MovieTrimError) -> Report {
        FFmpegLog.configureFromEnvironment()  // libx264 banner and statistics are info: not printed
        let inputPath = input.standardizedFileURL.path
        let outputPath = output.standardizedFileURL.path
        guard start.isFinite, end.isFinite, start >= 0, end >= 0, start < end else { throw .invalidRange(start: start, end: end) }
        let scanInput = try TrimInput(path: inputPath)
        // `video` below points into scanInput's context: keep it open to the end of the trim.
        defer { withExtendedLifetime(scanInput) {} }
        if let a = realpath(inputPath, nil) {
            defer { free(a) }
            if let b = realpath(outputPath, nil) {
                defer { free(b) }
                if strcmp(a, b) == 0 { throw .outputUnwritable(path: outputPath, reason: "it is the input itself; give another output") }
            }
        }
        let file = try AtomicOutputFile(destination: outputPath)
        if !replacingExisting && access(outputPath, F_OK) == 0 {
            throw .outputUnwritable(path: outputPath, reason: "it exists; give another output or replace it")
        }
        guard let outputFormat = av_guess_format(nil, outputPath, nil) else {
            throw .outputUnwritable(path: outputPath, reason: "its extension names no container FFmpeg can write; use .mp4, .mov or .mkv")
        }
        let packets = try VideoPacketIndex.scan(scanInput)
        let video = scanInput.video
        let timeBase = video.pointee.time_base
        let codecID = video.pointee.codecpar.pointee.codec_id
        let smartCut = codecID == AV_CODEC_ID_H264 && avcodec_find_encoder_by_name("libx264") != nil
            && AVCParameterSets(avcC: Self.extradata(of: video)) != nil
        let formatName = String(cString: outputFormat.pointee.name)
        let editList = formatName == "mp4" || formatName == "mov"
        let why = codecID == AV_CODEC_ID_H264
            ? "the H.264 stream's header is not an avcC record with 4-byte lengths (or libx264 is missing)"
            : "\(String(cString: avcodec_get_name(codecID))) is not re-encoded at a cut (only H.264 is)"
        let reason = why + (editList
            ? ", so the file starts at the key frame before the start, with an edit list that hides the frames before it"
            : ", so the cut moved to the key frame before the start (Matroska has no edit list to hide the frames before it)")
        let plan = try TrimPlan.make(packets: packets, timeBase: (Int64(timeBase.num), Int64(timeBase.den)), start: start, end: end,
                                     canReencode: smartCut, fallbackReason: reason, editList: editList, path: inputPath)
        let chapters = ChapterTable.read(scanInput.context)
        do throws(MovieTrimError) {
            let writer = try TrimWriter(inputPath: inputPath, temporaryPath: file.temporaryPath, format: outputFormat, plan: plan,
                                        chapters: chapters, copiedPictureSetIDs: plan.copiedPictureSetIDs(packets))
            let written = try writer.run()
            try file.commit(replacing: replacingExisting)
            let seconds = { (ticks: Int64) in Double(ticks) * Double(timeBase.num) / Double(timeBase.den) }
            let method: Method = plan.fallback != nil ? .keyFrameCut : plan.reencodedFrames == 0 ? .remux : .smartCut
            return Report(method: method, reencodedFrames: plan.head?.frames.count ?? 0, reencodedTailFrames: plan.tail?.frames.count ?? 0,
                          copiedVideoPackets: plan.copy?.count ?? 0, audioTracks: written.audioTracks,
                          audioPackets: written.audioPackets, chapters: written.chapters,
                          duration: seconds(plan.endPts - plan.cutPts), firstFrameTime: seconds(plan.cutPts - plan.zeroPts),
                          note: plan.fallback)
        } catch {
            file.discard()
            throw error
        }
    }

    static func extradata(of stream: UnsafeMutablePointer<AVStream>) -> [UInt8] {
        let parameters = stream.pointee.codecpar.pointee
        guard let data = parameters.extradata, parameters.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(parameters.extradata_size)))
    }
}
