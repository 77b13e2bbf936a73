/// The fields of an H.264 sequence parameter set (ITU-T H.264 7.3.2.1.1) that writing and
/// renumbering slices needs. Parsing stops after `frame_mbs_only_flag`; what follows (cropping,
/// VUI) is not needed.
struct H264SequenceParameters: Equatable {
    var profile: Int
    var id: Int
    var chromaFormat: Int
    var separateColourPlanes: Bool
    /// log2(MaxFrameNum): `frame_num` is this many bits.
    var log2MaxFrameNum: Int
    var pictureOrderCountType: Int
    /// log2(MaxPicOrderCntLsb) for POC type 0 (`pic_order_cnt_lsb` is this many bits), else 0.
    var log2MaxPocLsb: Int
    var maxReferenceFrames: Int
    var widthInMacroblocks: Int
    var heightInMapUnits: Int
    var frameMacroblocksOnly: Bool

    /// Macroblocks in a frame (PicSizeInMbs for a frame picture).
    var macroblocksPerFrame: Int { widthInMacroblocks * heightInMapUnits * (frameMacroblocksOnly ? 1 : 2) }
    var maxFrameNum: Int { 1 << log2MaxFrameNum }
    var maxPocLsb: Int { 1 << log2MaxPocLsb }

    /// Parses a whole SPS NAL unit (header byte included, emulation prevention not yet removed);
    /// nil when it is not one or is truncated.
    init?<C: Collection<UInt8>>(unit: C) {
        guard let header = unit.first, header & 0x1F == 7 else { return nil }
        var r = H264BitReader(H264RBSP.unescaped(unit.dropFirst()))
        guard let profile = r.bits(8), r.skip(16), let id = r.ue() else { return nil }
        self.profile = profile
        self.id = id
        chromaFormat = 1
        separateColourPlanes = false
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            guard let chroma = r.ue() else { return nil }
            chromaFormat = chroma
            if chroma == 3 { guard let separate = r.bit() else { return nil }; separateColourPlanes = separate == 1 }
            guard r.ue() != nil, r.ue() != nil, r.skip(1), let matrices = r.bit() else { return nil }
            if matrices == 1 {
                for list in 0..<(chroma != 3 ? 8 : 12) {
                    guard let present = r.bit() else { return nil }
                    if present == 1 { guard Self.skipScalingList(&r, size: list < 6 ? 16 : 64) else { return nil } }
                }
            }
        }
        guard let frameNumBits = r.ue(), frameNumBits <= 12, let pocType = r.ue() else { return nil }
        log2MaxFrameNum = frameNumBits + 4
        pictureOrderCountType = pocType
        log2MaxPocLsb = 0
        if pocType == 0 {
            guard let lsbBits = r.ue(), lsbBits <= 12 else { return nil }
            log2MaxPocLsb = lsbBits + 4
        } else if pocType == 1 {
            guard r.skip(1), r.se() != nil, r.se() != nil, let cycle = r.ue(), cycle < 256 else { return nil }
            for _ in 0..<cycle { guard r.se() != nil else { return nil } }
        }
        guard let refs = r.ue(), r.skip(1), let width = r.ue(), let height = r.ue(), let frameOnly = r.bit() else { return nil }
        maxReferenceFrames = refs
        widthInMacroblocks = width + 1
        heightInMapUnits = height + 1
        frameMacroblocksOnly = frameOnly == 1
    }

    private static func skipScalingList(_ r: inout H264BitReader, size: Int) -> Bool {
        var last = 8
        var next = 8
        for _ in 0..<size {
            if next != 0 {
                guard let delta = r.se() else { return false }
                next = (last + delta + 256) % 256
            }
            last = next == 0 ? last : next
        }
        return true
    }
}

/// The first fields of an H.264 picture parameter set (7.3.2.2): its id and its SPS's.
struct H264PictureParameterIDs: Equatable {
    var id: Int
    var sequenceID: Int

    /// Parses a PPS NAL unit (header byte included); nil when it is not one.
    init?<C: Collection<UInt8>>(unit: C) {
        guard let header = unit.first, header & 0x1F == 8 else { return nil }
        var r = H264BitReader(H264RBSP.unescaped(unit.dropFirst().prefix(16)))
        guard let id = r.ue(), let sps = r.ue() else { return nil }
        self.id = id
        self.sequenceID = sps
    }
}
