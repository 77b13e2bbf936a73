/// Splices skip pictures (``H264SkipPicture``) into an H.264 stream with B-frames, so that a
/// constant-frame-rate recording of a still screen feeds the encoder only the pictures that
/// changed, and a still screen costs the encoder nothing. Pure: bytes in, bytes out; one caller at a time.
///
/// The caller feeds the encoder only some frame slots and tells the splicer, for each slot it
/// left out, which fed slot (the *anchor*) shows that picture (``addSkip(slot:anchor:)``). The
/// anchor must be coded as a P or I picture (a reference; the caller forces P), and the frame
/// fed after a left-out run must be a P or I picture too, so that every B-frame lies between
/// two fed frames whose slots are contiguous (implicit weighted bi-prediction, which x264 uses,
/// weighs by POC distance, and the renumbering below keeps those distances only there).
///
/// Output (``Output``): the encoder's packets in decode order, with each skip placed right
/// before the first encoder packet shown after its anchor (after the B-frames shown before the
/// anchor, which reference pictures decoded after it: hence the skip's list reordering), and
/// every slice's POC renumbered to 2 x (slot - slot of the last IDR): the encoder numbered the
/// frames it was fed, which leaves no room for the skips. POC stays within MaxPicOrderCntLsb/2
/// of the previous reference picture as long as no run between fed slots exceeds
/// ``longestRun`` (the caller feeds a frame then). Decode times: one packet per slot, so
/// dts = first slot + decode index - ``reorderDelay``, strictly increasing and never above pts.
package struct H264SkipSplicer {
    /// One output packet: 4-byte length-prefixed NAL units (as in MP4), times in slots.
    package struct Output: Equatable {
        /// The packet's NAL units, each after its 4-byte big-endian length.
        package let data: [UInt8]
        /// Presentation time: the frame slot.
        package let pts: Int64
        /// Decode time, in slots (may be negative at the start, as x264's is).
        package let dts: Int64
        /// An IDR picture.
        package let isKeyFrame: Bool
        /// A spliced skip picture (not from the encoder).
        package let isSkip: Bool
    }

    /// The stream's `avcC`: the encoder's, plus the skip slices' PPS.
    package let avcC: [UInt8]
    /// The longest run of slots the caller may leave out after a fed slot, so that no POC lies
    /// MaxPicOrderCntLsb/2 or more from the previous reference picture's (8.2.1.1).
    package let longestRun: Int
    private let sps: H264SequenceParameters
    private let skip: H264SkipPicture
    private let reorderDelay: Int64
    private var pending: [(slot: Int64, anchor: Int64)] = []
    private var referenceFrameNums: [Int64: Int] = [:]  // pts of recent reference pictures -> frame_num
    private var previousReferenceFrameNum: Int?
    private var idrSlot: Int64?
    private var firstSlot: Int64?
    private var decodeIndex: Int64 = 0
    private var lastDts = Int64.min
    private var previousReferencePoc: Int64 = 0

    /// Prepares splicing for an encoder whose global header is `avcC` (4-byte NAL lengths) and
    /// whose reorder delay is `reorderDelay` frames (`AVCodecContext.has_b_frames`). Throws a
    /// reason when the stream cannot take skips: not POC type 0, field coding, several SPS, or
    /// MaxPicOrderCntLsb too small.
    package init(avcC: [UInt8], reorderDelay: Int) throws(MediaError) {
        guard let sets = AVCParameterSets(avcC: avcC), sets.sequenceSets.count == 1, !sets.pictureSets.isEmpty else {
            throw MediaError("skip splicing: the global header is not an avcC record with one SPS")
        }
        guard let sps = H264SequenceParameters(unit: sets.sequenceSets[0]) else {
            throw MediaError("skip splicing: the SPS does not parse")
        }
        guard sps.pictureOrderCountType == 0 else {
            throw MediaError("skip splicing: the SPS uses POC type \(sps.pictureOrderCountType), not 0 (an encoder without B-frames)")
        }
        guard sps.frameMacroblocksOnly, !sps.separateColourPlanes else {
            throw MediaError("skip splicing: the SPS allows field coding or separate colour planes")
        }
        let ids = sets.pictureSets.compactMap { H264PictureParameterIDs(unit: $0) }
        guard ids.count == sets.pictureSets.count, ids.allSatisfy({ $0.sequenceID == sps.id }),
              let free = (1...255).first(where: { id in !ids.contains { $0.id == id } }) else {
            throw MediaError("skip splicing: the PPS do not parse or name another SPS")
        }
        // The frame fed after a run (anchor + run + 1) must lie less than MaxPicOrderCntLsb/2 POC
        // units (two a slot) after the previous reference picture, which may be a B-pyramid's
        // reference B shown before the anchor: the middle of its B run, at most b/2 + 1 slots
        // back. x264 sizes MaxPicOrderCntLsb > 8 (b + 2) with a pyramid (set.c), so b <=
        // MaxPicOrderCntLsb/8 - 3 whatever the preset. Checked again on every picture.
        let back = (sps.maxPocLsb / 8 - 3) / 2 + 1
        let run = sps.maxPocLsb / 4 - back - 2
        guard run >= 4 else {
            throw MediaError("skip splicing: MaxPicOrderCntLsb \(sps.maxPocLsb) leaves runs of \(run) slots")
        }
        self.sps = sps
        self.skip = H264SkipPicture(sps: sps, ppsID: free)
        guard let record = AVCConfiguration.record(from: (sets.sequenceSets + sets.pictureSets + [skip.pictureParameterSet()]).map { ArraySlice($0) })
        else { throw MediaError("skip splicing: cannot rebuild the avcC record") }
        self.avcC = record
        self.longestRun = run
        self.reorderDelay = Int64(max(0, reorderDelay))
    }

    /// Notes that `slot` was left out and shows the picture fed at `anchor`. Slots must be
    /// added in increasing order, each after its anchor was fed.
    package mutating func addSkip(slot: Int64, anchor: Int64) {
        precondition(slot > anchor, "H264SkipSplicer: skip slot \(slot) is not after its anchor \(anchor)")
        pending.append((slot, anchor))
    }

    /// Takes one encoder packet (decode order; 4-byte length-prefixed NAL units; pts in slots)
    /// and returns what is ready: the skips due before it, then the packet, renumbered. Throws
    /// when the packet does not parse as this stream's slices.
    package mutating func process(_ data: [UInt8], pts: Int64, isKeyFrame: Bool) throws(MediaError) -> [Output] {
        var out: [Output] = []
        while let next = pending.first, next.anchor < pts {
            pending.removeFirst()
            out.append(try skipPicture(next.slot, anchor: next.anchor))
        }
        var rewritten: [UInt8] = []
        rewritten.reserveCapacity(data.count + 8)
        var reference: Int?
        guard let units = AVCConfiguration.lengthPrefixedUnits(data) else {
            throw MediaError("skip splicing: an encoder packet at pts \(pts) is not 4-byte length-prefixed NAL units")
        }
        for unit in units {
            var bytes = Array(unit)
            if H264SliceHeader.isSlice(unit) {
                guard let header = H264SliceHeader(unit: unit, sps: sps) else {
                    throw MediaError("skip splicing: a slice at pts \(pts) does not parse")
                }
                if header.isIDR { idrSlot = pts }
                guard let idr = idrSlot else { throw MediaError("skip splicing: a slice at pts \(pts) before the first IDR") }
                guard let renumbered = H264SliceHeader.settingPocLsb(Int(truncatingIfNeeded: 2 * (pts - idr)), in: bytes, sps: sps) else {
                    throw MediaError("skip splicing: cannot renumber the slice at pts \(pts)")
                }
                bytes = renumbered
                try checkPoc(2 * (pts - idr), isIDR: header.isIDR, pts: pts)
                if header.isReference { reference = header.frameNum }
            }
            let n = bytes.count
            rewritten += [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            rewritten += bytes
        }
        if let reference, let idr = idrSlot {
            previousReferenceFrameNum = reference
            previousReferencePoc = 2 * (pts - idr)
            referenceFrameNums[pts] = reference
            if referenceFrameNums.count > 64, let oldest = referenceFrameNums.keys.min() { referenceFrameNums[oldest] = nil }
        }
        out.append(try output(rewritten, pts: pts, isKeyFrame: isKeyFrame, isSkip: false))
        return out
    }

    /// Returns every skip still waiting: call after the encoder was drained (at the end, or
    /// before a restarted encoder's first packet).
    package mutating func finish() throws(MediaError) -> [Output] {
        var out: [Output] = []
        for next in pending { out.append(try skipPicture(next.slot, anchor: next.anchor)) }
        pending.removeAll()
        return out
    }

    private mutating func skipPicture(_ slot: Int64, anchor: Int64) throws(MediaError) -> Output {
        guard let referenceFrameNum = referenceFrameNums[anchor], let previous = previousReferenceFrameNum, let idr = idrSlot else {
            throw MediaError("skip splicing: the anchor at slot \(anchor) of skip slot \(slot) was not coded as a reference picture")
        }
        try checkPoc(2 * (slot - idr), isIDR: false, pts: slot)
        let unit = skip.slice(frameNum: (previous + 1) % sps.maxFrameNum, pocLsb: Int(truncatingIfNeeded: 2 * (slot - idr)),
                              referenceFrameNum: referenceFrameNum)
        let n = unit.count
        return try output([UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + unit,
                          pts: slot, isKeyFrame: false, isSkip: true)
    }

    /// 8.2.1.1 derives a POC from its lsb and the previous reference picture's POC: they must
    /// lie less than MaxPicOrderCntLsb/2 apart.
    private func checkPoc(_ poc: Int64, isIDR: Bool, pts: Int64) throws(MediaError) {
        guard !isIDR else { return }
        guard abs(poc - previousReferencePoc) < Int64(sps.maxPocLsb / 2) else {
            throw MediaError("skip splicing: the picture at pts \(pts) lies \(abs(poc - previousReferencePoc) / 2) slots from the previous "
                + "reference picture, too far for \(sps.log2MaxPocLsb)-bit POC")
        }
    }

    private mutating func output(_ data: [UInt8], pts: Int64, isKeyFrame: Bool, isSkip: Bool) throws(MediaError) -> Output {
        if firstSlot == nil { firstSlot = pts }
        let dts = (firstSlot ?? pts) + decodeIndex - reorderDelay
        decodeIndex += 1
        guard dts <= pts, dts > lastDts else {
            throw MediaError("skip splicing: decode time \(dts) for pts \(pts) (after \(lastDts)): a frame slot was neither fed nor skipped")
        }
        lastDts = dts
        return Output(data: data, pts: pts, dts: dts, isKeyFrame: isKeyFrame, isSkip: isSkip)
    }
}
