/// What a trim does with the video, decided from the packet index alone (no decoding).
///
/// All timestamps are in the video stream's time base. The kept frames are those shown from
/// the start (the frame on screen at `start`) to before `end`. They come out as up to three runs,
/// in decode order:
///
/// * **head**: the frames from the cut up to the next key frame, decoded from the key frame
///   before the cut and re-encoded (starting with a key frame), when the cut is not at a key frame;
/// * **copy**: packets copied as they are, from a key frame on;
/// * **tail**: the last few kept frames, re-encoded, when the end falls inside a run of
///   reordered (B-) frames whose reference lies after the end: copying them would need frames
///   beyond the end.
struct TrimPlan: Equatable {
    /// A run of frames to decode and re-encode.
    struct Reencode: Equatable {
        /// Decode-order packet indices to feed the decoder (from a key frame).
        var decode: ClosedRange<Int>
        /// Presentation timestamps of the frames to re-encode, ascending.
        var frames: [Int64]
        /// Each of those frames' duration in the input (the re-encoded packets keep it).
        var durations: [Int64: Int64] = [:]
    }

    /// Presentation timestamp of the first kept frame; subtracted from every output timestamp.
    var cutPts: Int64
    /// The end of the last kept frame: where the next frame of the input appears, or `end`,
    /// whichever is first (so a frame of a variable-frame-rate movie stays up until `end`, and
    /// the file lasts `end - start` within one frame).
    var endPts: Int64
    /// The presentation time of the movie's first frame (the movie's zero).
    var zeroPts: Int64
    var head: Reencode?
    /// Decode-order packet indices copied unchanged.
    var copy: Range<Int>?
    var tail: Reencode?
    /// The decoding delay (pts - dts) the output keeps for re-encoded frames, so that their
    /// decode timestamps line up with the copied packets'.
    var delay: Int64
    /// Why the cut is at a key frame before the asked start (codec that cannot be re-encoded), or nil.
    var fallback: String?
    /// The last shown frame's pts; it gets the duration (`endPts - lastPts`), which may differ
    /// from its duration in the input (a still screen's frame lasts until the next one).
    var lastPts: Int64 = 0

    /// Plans the trim of `packets` (decode order) to the seconds `start`..<`end` from the first frame.
    ///
    /// `timeBase` is the video stream's (num, den); `canReencode` says whether a head and tail
    /// may be re-encoded; when false, the copy starts at the key frame before `start` and the end
    /// moves forward to the first point where copying is complete (`fallback` says so). Then, with
    /// `editList` (MP4/MOV output), the frames before `start` get negative timestamps, which the
    /// MP4 muxer hides with an edit list, so the output still begins at `start`; without it
    /// (Matroska) the cut itself moves back to the key frame.
    static func make(packets: [VideoPacketInfo], timeBase: (num: Int64, den: Int64), start: Double, end: Double,
                     canReencode: Bool, fallbackReason: String, editList: Bool = false, path: String) throws(MovieTrimError) -> TrimPlan {
        guard start.isFinite, end.isFinite, start >= 0, end >= 0, start < end else { throw .invalidRange(start: start, end: end) }
        guard !packets.isEmpty else { throw .notAMovie(path: path, reason: "its video stream has no frames") }
        let order = packets.indices.sorted { packets[$0].pts < packets[$1].pts }
        let zero = packets[order[0]].pts
        let last = packets[order[order.count - 1]]
        let total = last.pts + last.duration - zero
        func ticks(_ seconds: Double) -> Int64 { Int64((seconds * Double(timeBase.den) / Double(timeBase.num)).rounded()) }
        let tolerance = max(1, ticks(0.001))  // a millisecond: float trim points from a page land on their frame
        let duration = Double(total) * Double(timeBase.num) / Double(timeBase.den)
        guard ticks(start) < total else { throw .startBeyondDuration(start: start, duration: duration) }
        let startTarget = zero + ticks(start)
        let endTarget = zero + min(ticks(end), total)

        // The frame on screen at `start`, and the kept frames.
        guard var cutRank = order.lastIndex(where: { packets[$0].pts <= startTarget + tolerance }) else {
            throw .notAMovie(path: path, reason: "no frame at \(start) s")
        }
        guard let keyRank = order[...cutRank].lastIndex(where: { packets[$0].isKey }) else {
            throw .notAMovie(path: path, reason: "no key frame at or before \(start) s to decode from")
        }
        var fallback: String? = nil
        var prerollRank: Int? = nil  // copied from here, hidden by an edit list
        if keyRank != cutRank && !canReencode {
            if editList { prerollRank = keyRank } else { cutRank = keyRank }
            fallback = fallbackReason
        }
        let cutPts = packets[order[cutRank]].pts
        var kept = Set<Int>()  // packet indices (with the hidden pre-roll ones)
        for rank in (prerollRank ?? cutRank)..<order.count {
            let index = order[rank]
            if rank > cutRank && packets[index].pts >= endTarget - tolerance { break }
            kept.insert(index)
        }
        let keyIndex = order[keyRank]
        let cutIndex = order[cutRank]

        // Head: from the cut to the next key frame among the kept ones.
        var head: Reencode? = nil
        var copyStart: Int? = prerollRank == nil ? cutIndex : keyIndex
        if keyIndex != cutIndex && prerollRank == nil {
            let nextKey = order[(cutRank + 1)...].first { packets[$0].isKey && kept.contains($0) }
            let limit = nextKey.map { packets[$0].pts } ?? Int64.max
            let frames = kept.filter { packets[$0].pts < limit }
            let through = frames.max() ?? cutIndex
            if let nextKey, through > nextKey {
                // An open GOP: frames before the key frame are decoded after it. Not made by RecordKit.
                throw .notAMovie(path: path, reason: "its GOPs are open (frames before a key frame depend on it); trim at a key frame")
            }
            head = Reencode(decode: keyIndex...through, frames: frames.map { packets[$0].pts }.sorted(),
                            durations: Dictionary(frames.map { (packets[$0].pts, packets[$0].duration) }) { a, _ in a })
            copyStart = nextKey
        }

        // Copy: the longest run of kept packets, in decode order, that shows a closed span of frames.
        var copy: Range<Int>? = nil
        var tail: Reencode? = nil
        if let copyStart {
            let copyKept = kept.filter { $0 >= copyStart }.map { packets[$0].pts }.sorted()
            var closedEnd = copyStart
            var maxPts = Int64.min
            var index = copyStart
            while index < packets.count, kept.contains(index) {
                maxPts = max(maxPts, packets[index].pts)
                index += 1
                if copyKept[index - copyStart - 1] == maxPts { closedEnd = index }
            }
            let left = copyKept.filter { $0 > (closedEnd > copyStart ? maxPtsOf(packets, copyStart..<closedEnd) : Int64.min) }
            if !left.isEmpty && !canReencode {
                // Copy on until every kept frame's references are in: a few frames past the end are shown.
                var needed = Set(left)
                var scan = closedEnd
                while scan < packets.count, !needed.isEmpty {
                    needed.remove(packets[scan].pts)
                    scan += 1
                }
                copy = copyStart..<scan
                fallback = fallback ?? fallbackReason
            } else {
                copy = closedEnd > copyStart ? copyStart..<closedEnd : nil
                if !left.isEmpty {
                    let tailIndices = kept.filter { $0 >= copyStart && packets[$0].pts >= left[0] }
                    let firstTail = order.firstIndex(of: tailIndices.min(by: { packets[$0].pts < packets[$1].pts })!)!
                    let tailKeyRank = order[...firstTail].lastIndex { packets[$0].isKey }!
                    tail = Reencode(decode: order[tailKeyRank]...tailIndices.max()!, frames: left,
                                    durations: Dictionary(tailIndices.map { (packets[$0].pts, packets[$0].duration) }) { a, _ in a })
                }
            }
        }
        let first = packets[copy?.lowerBound ?? keyIndex]
        let shown = copy.map { Set($0) }.map { $0.union(kept) } ?? kept
        let lastIndex = shown.max { packets[$0].pts < packets[$1].pts } ?? cutIndex
        let lastPts = packets[lastIndex].pts
        let nextPts = order.first { packets[$0].pts > lastPts }.map { packets[$0].pts } ?? lastPts + packets[lastIndex].duration
        // The file ends at `end`: the last frame lasts until the next one or `end`, whichever is
        // first (cut short when `end` falls inside it). Frames past `end` (a key-frame cut's
        // references) keep their own duration.
        let endPts = lastPts >= endTarget ? lastPts + packets[lastIndex].duration : max(lastPts + 1, min(nextPts, endTarget))
        return TrimPlan(cutPts: cutPts, endPts: endPts, zeroPts: zero, head: head, copy: copy, tail: tail,
                        delay: max(0, first.pts - first.dts), fallback: fallback, lastPts: lastPts)
    }

    private static func maxPtsOf(_ packets: [VideoPacketInfo], _ range: Range<Int>) -> Int64 {
        range.map { packets[$0].pts }.max() ?? Int64.min
    }

    /// The duration the output gives the frame at `pts` (input time base): its own, except the
    /// last frame's, which lasts until ``endPts``.
    func duration(ofFrameAt pts: Int64, input: Int64) -> Int64 { pts == lastPts ? endPts - lastPts : input }

    /// The PPS ids the copied packets use, or nil when one of them could not be read (or the
    /// codec is not H.264): then every input parameter set stays.
    func copiedPictureSetIDs(_ packets: [VideoPacketInfo]) -> Set<Int>? {
        guard let copy else { return [] }
        var ids = Set<Int>()
        for index in copy {
            guard let id = packets[index].pictureSetID else { return nil }
            ids.insert(id)
        }
        return ids
    }

    /// Frames re-encoded at the head and tail.
    var reencodedFrames: Int { (head?.frames.count ?? 0) + (tail?.frames.count ?? 0) }
}
