/// The start of an H.264 coded slice's header (ITU-T H.264 7.3.3) up to `pic_order_cnt_lsb`,
/// which is all a splicer needs: whether the picture is a reference, its `frame_num`, and where
/// its POC field lies so that it can be renumbered in place.
struct H264SliceHeader: Equatable {
    /// `nal_ref_idc` != 0.
    var isReference: Bool
    /// NAL unit type 5.
    var isIDR: Bool
    var firstMacroblock: Int
    var sliceType: Int
    var pictureParameterSetID: Int
    var frameNum: Int
    var pocLsb: Int
    /// Bit offset of `pic_order_cnt_lsb` in the RBSP after the NAL header byte.
    var pocLsbBitOffset: Int

    /// Whether `unit`'s NAL type is a coded slice (1) or an IDR slice (5).
    static func isSlice<C: Collection<UInt8>>(_ unit: C) -> Bool {
        guard let header = unit.first else { return false }
        return header & 0x1F == 1 || header & 0x1F == 5
    }

    /// Parses a slice NAL unit (header byte included, emulation prevention present) of a stream
    /// using `sps` with POC type 0; nil otherwise.
    init?(unit: some Collection<UInt8>, sps: H264SequenceParameters) {
        guard let rbsp = Self.rbsp(of: unit) else { return nil }
        self.init(rbsp: rbsp, header: unit.first ?? 0, sps: sps)
    }

    init?(rbsp: [UInt8], header: UInt8, sps: H264SequenceParameters) {
        guard sps.pictureOrderCountType == 0, sps.frameMacroblocksOnly, !sps.separateColourPlanes else { return nil }
        var r = H264BitReader(rbsp)
        guard let first = r.ue(), let type = r.ue(), let pps = r.ue(), let frameNum = r.bits(sps.log2MaxFrameNum) else { return nil }
        isIDR = header & 0x1F == 5
        isReference = header & 0x60 != 0
        if isIDR { guard r.ue() != nil else { return nil } }
        pocLsbBitOffset = r.position
        guard let lsb = r.bits(sps.log2MaxPocLsb) else { return nil }
        firstMacroblock = first
        sliceType = type
        pictureParameterSetID = pps
        self.frameNum = frameNum
        pocLsb = lsb
    }

    /// The RBSP after the header byte; nil for anything but a slice.
    static func rbsp(of unit: some Collection<UInt8>) -> [UInt8]? {
        guard isSlice(unit) else { return nil }
        // The header fields lie in the first few bytes; unescape only those.
        return H264RBSP.unescaped(unit.dropFirst().prefix(32))
    }

    /// `unit` with `pic_order_cnt_lsb` set to `lsb` (a field of fixed width: only its bits change,
    /// then the escaping is redone where they lie). Nil when `unit` does not parse as a slice of
    /// `sps`.
    static func settingPocLsb(_ lsb: Int, in unit: [UInt8], sps: H264SequenceParameters) -> [UInt8]? {
        guard let header = unit.first, isSlice(unit) else { return nil }
        var rbsp = H264RBSP.unescaped(unit.dropFirst())
        guard let parsed = H264SliceHeader(rbsp: rbsp, header: header, sps: sps) else { return nil }
        if parsed.pocLsb == lsb & (sps.maxPocLsb - 1) { return unit }
        let width = sps.log2MaxPocLsb
        for i in 0..<width {
            let position = parsed.pocLsbBitOffset + i
            let mask = UInt8(0x80) >> UInt8(position & 7)
            if (lsb >> (width - 1 - i)) & 1 == 1 { rbsp[position >> 3] |= mask } else { rbsp[position >> 3] &= ~mask }
        }
        return [header] + H264RBSP.escaped(rbsp)
    }
}
