/// The samples of one track, gathered fragment by fragment, as a plain MP4's sample table
/// (`stbl`) lists them: sizes, durations, composition offsets, sync samples and chunks (one
/// chunk per run of contiguous samples). Times are in the track's media timescale. A value type;
/// not thread-safe.
struct MP4TrackTable {
    /// The track's `track_ID`.
    let trackID: UInt32
    /// The decode time of the first sample (the first fragment's `tfdt`), nil before any sample.
    private(set) var firstDecodeTime: UInt64?
    private(set) var sizes: [UInt32] = []
    /// Durations and composition offsets as runs of equal values, as `stts` and `ctts` store
    /// them (an hour of constant audio is one run).
    private var durationRuns: [(count: UInt32, value: UInt32)] = []
    private var offsetRuns: [(count: UInt32, value: Int32)] = []
    /// 1-based numbers of the samples a decoder can start at.
    private(set) var syncSamples: [UInt32] = []
    /// File offset and sample count of each chunk.
    private(set) var chunks: [(offset: UInt64, count: UInt32)] = []
    /// The latest presentation time of a sample (decode time + composition offset), relative
    /// to the first decode time: the last picture's start.
    private(set) var lastPresentationTime: Int64?
    private var nextDecodeTime: UInt64 = 0
    private var chunkEnd: UInt64 = 0

    init(trackID: UInt32) { self.trackID = trackID }

    /// How many samples the table holds.
    var sampleCount: Int { sizes.count }
    /// Where the media's last picture (or sound) ends, relative to the first decode time: the
    /// latest presentation time plus the duration of the last sample in decode order, which is
    /// the duration the writer gave its last packet (libavformat writes it as is; it is the
    /// packet's own `duration`, what libavformat's `end_pts` adds too).
    ///
    /// Not the latest presentation time plus *that* sample's duration: a fragment's durations are
    /// decode-time differences, and with B-frames the picture shown last is decoded before the
    /// B-frames it references, so its "duration" is the decode-time step to the next packet, not
    /// how long it shows. At variable frame rate on a still screen (pictures half a second
    /// apart) that ran a 2 s recording's video to 2.5 s, and the last picture of a split part
    /// past the cut into the next part. Without reordering (audio, low-delay video)
    /// the sample shown last is the last decoded, and both are the same.
    var presentationEnd: Int64 {
        guard let last = lastPresentationTime, let final = durationRuns.last else { return 0 }
        return last + Int64(final.value)
    }

    /// The sum of the durations: the track's media duration.
    var mediaDuration: UInt64 { durationRuns.reduce(0) { $0 + UInt64($1.count) * UInt64($1.value) } }
    /// The largest chunk offset.
    var largestOffset: UInt64 { chunks.last?.offset ?? 0 }

    /// Starts a fragment whose first sample decodes at `decodeTime` (its `tfdt`, when it has
    /// one). A gap or overlap against the previous fragment's end is given to the previous
    /// sample's duration, so every sample keeps its decode time.
    mutating func beginFragment(decodeTime: UInt64?) {
        guard let decodeTime else { return }
        guard firstDecodeTime != nil, let last = durationRuns.last else {
            if firstDecodeTime == nil { firstDecodeTime = decodeTime; nextDecodeTime = decodeTime }
            return
        }
        let adjusted = Int64(last.value) + Int64(bitPattern: decodeTime &- nextDecodeTime)
        guard adjusted != Int64(last.value), adjusted >= 0, adjusted <= Int64(UInt32.max) else { return }
        // The last sample leaves its run and gets a run of its own.
        if last.count == 1 { durationRuns.removeLast() } else { durationRuns[durationRuns.count - 1].count -= 1 }
        Self.append(UInt32(adjusted), to: &durationRuns)
        nextDecodeTime = decodeTime
    }

    /// Adds a sample whose bytes are at `offset` in the file; a sample that does not follow
    /// the previous one's bytes starts a new chunk.
    mutating func append(offset: UInt64, size: UInt32, duration: UInt32, compositionOffset: Int32, isSync: Bool) {
        if firstDecodeTime == nil { firstDecodeTime = 0 }
        if chunks.isEmpty || offset != chunkEnd {
            chunks.append((offset, 1))
        } else {
            chunks[chunks.count - 1].count += 1
        }
        chunkEnd = offset + UInt64(size)
        sizes.append(size)
        Self.append(duration, to: &durationRuns)
        Self.append(compositionOffset, to: &offsetRuns)
        if isSync { syncSamples.append(UInt32(sizes.count)) }
        let decodeTime = Int64(bitPattern: nextDecodeTime &- (firstDecodeTime ?? 0))
        lastPresentationTime = max(lastPresentationTime ?? .min, decodeTime + Int64(compositionOffset))
        nextDecodeTime += UInt64(duration)
    }

    /// Writes the `stbl` box: `stsd` as given, then `stts`, `ctts` (when a sample has a
    /// composition offset), `stss` (when not every sample is a sync sample), `stsc`, `stsz`, and
    /// `stco`, or `co64` when `wideOffsets`.
    func writeSampleTable(stsd: ArraySlice<UInt8>, wideOffsets: Bool, into writer: inout MP4BoxWriter) {
        writer.box("stbl") { w in
            w.raw(stsd)
            w.fullBox("stts", version: 0) { w in
                w.u32(UInt32(durationRuns.count))
                for run in durationRuns { w.u32(run.count); w.u32(run.value) }
            }
            if offsetRuns.contains(where: { $0.value != 0 }) {
                w.fullBox("ctts", version: offsetRuns.contains { $0.value < 0 } ? 1 : 0) { w in
                    w.u32(UInt32(offsetRuns.count))
                    for run in offsetRuns { w.u32(run.count); w.u32(UInt32(bitPattern: run.value)) }
                }
            }
            if syncSamples.count != sizes.count {
                w.fullBox("stss", version: 0) { w in
                    w.u32(UInt32(syncSamples.count))
                    for number in syncSamples { w.u32(number) }
                }
            }
            w.fullBox("stsc", version: 0) { w in
                var entries: [(first: UInt32, count: UInt32)] = []
                for (index, chunk) in chunks.enumerated() where entries.last?.count != chunk.count {
                    entries.append((UInt32(index + 1), chunk.count))
                }
                w.u32(UInt32(entries.count))
                for entry in entries { w.u32(entry.first); w.u32(entry.count); w.u32(1) }
            }
            w.fullBox("stsz", version: 0) { w in
                if let first = sizes.first, sizes.allSatisfy({ $0 == first }) {
                    w.u32(first)
                    w.u32(UInt32(sizes.count))
                } else {
                    w.u32(0)
                    w.u32(UInt32(sizes.count))
                    for size in sizes { w.u32(size) }
                }
            }
            if wideOffsets {
                w.fullBox("co64", version: 0) { w in
                    w.u32(UInt32(chunks.count))
                    for chunk in chunks { w.u64(chunk.offset) }
                }
            } else {
                w.fullBox("stco", version: 0) { w in
                    w.u32(UInt32(chunks.count))
                    for chunk in chunks { w.u32(UInt32(chunk.offset)) }
                }
            }
        }
    }

    /// Adds `value` to run-length encoded `runs`.
    private static func append<T: Equatable>(_ value: T, to runs: inout [(count: UInt32, value: T)]) {
        if let last = runs.last, last.value == value {
            runs[runs.count - 1].count += 1
        } else {
            runs.append((1, value))
        }
    }
}
