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
    private(set) var durations: [UInt32] = []
    private(set) var compositionOffsets: [Int32] = []
    /// 1-based numbers of the samples a decoder can start at.
    private(set) var syncSamples: [UInt32] = []
    /// File offset and sample count of each chunk.
    private(set) var chunks: [(offset: UInt64, count: UInt32)] = []
    /// The latest end of a sample's presentation (decode time + composition offset +
    /// duration), relative to the first decode time: where the media's last picture ends.
    private(set) var presentationEnd: Int64 = 0
    private var nextDecodeTime: UInt64 = 0
    private var chunkEnd: UInt64 = 0

    init(trackID: UInt32) { self.trackID = trackID }

    /// How many samples the table holds.
    var sampleCount: Int { sizes.count }
    /// The sum of the durations: the track's media duration.
    var mediaDuration: UInt64 { durations.reduce(0) { $0 + UInt64($1) } }
    /// The largest chunk offset.
    var largestOffset: UInt64 { chunks.last?.offset ?? 0 }

    /// Starts a fragment whose first sample decodes at `decodeTime` (its `tfdt`, when it has
    /// one). A gap or overlap against the previous fragment's end is given to the previous
    /// sample's duration, so every sample keeps its decode time.
    mutating func beginFragment(decodeTime: UInt64?) {
        guard let decodeTime else { return }
        guard firstDecodeTime != nil, let last = durations.indices.last else {
            if firstDecodeTime == nil { firstDecodeTime = decodeTime; nextDecodeTime = decodeTime }
            return
        }
        let adjusted = Int64(durations[last]) + Int64(bitPattern: decodeTime &- nextDecodeTime)
        if adjusted >= 0, adjusted <= Int64(UInt32.max) {
            durations[last] = UInt32(adjusted)
            nextDecodeTime = decodeTime
        }
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
        durations.append(duration)
        compositionOffsets.append(compositionOffset)
        if isSync { syncSamples.append(UInt32(sizes.count)) }
        let decodeTime = Int64(bitPattern: nextDecodeTime &- (firstDecodeTime ?? 0))
        presentationEnd = max(presentationEnd, decodeTime + Int64(compositionOffset) + Int64(duration))
        nextDecodeTime += UInt64(duration)
    }

    /// Writes the `stbl` box: `stsd` as given, then `stts`, `ctts` (when a sample has a
    /// composition offset), `stss` (when not every sample is a sync sample), `stsc`, `stsz`, and
    /// `stco`, or `co64` when `wideOffsets`.
    func writeSampleTable(stsd: ArraySlice<UInt8>, wideOffsets: Bool, into writer: inout MP4BoxWriter) {
        writer.box("stbl") { w in
            w.raw(stsd)
            let timing = Self.runs(durations)
            w.fullBox("stts", version: 0) { w in
                w.u32(UInt32(timing.count))
                for run in timing { w.u32(run.count); w.u32(run.value) }
            }
            if compositionOffsets.contains(where: { $0 != 0 }) {
                let offsets = Self.runs(compositionOffsets)
                w.fullBox("ctts", version: compositionOffsets.contains { $0 < 0 } ? 1 : 0) { w in
                    w.u32(UInt32(offsets.count))
                    for run in offsets { w.u32(run.count); w.u32(UInt32(bitPattern: run.value)) }
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

    /// Run-length encoding: consecutive equal values as (count, value).
    private static func runs<T: Equatable>(_ values: [T]) -> [(count: UInt32, value: T)] {
        var result: [(count: UInt32, value: T)] = []
        for value in values {
            if let last = result.last, last.value == value {
                result[result.count - 1].count += 1
            } else {
                result.append((1, value))
            }
        }
        return result
    }
}
