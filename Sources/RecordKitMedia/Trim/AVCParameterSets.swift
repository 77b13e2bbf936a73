/// The parameter sets of an H.264 `avcC` record (ISO/IEC 14496-15 5.3.3.1) and the ids they
/// use, so that a re-encoded run can bring its own SPS/PPS under ids the original does not use
/// and one merged record can describe both (a sample names its PPS by id, the PPS its SPS).
struct AVCParameterSets: Equatable {
    var sequenceSets: [[UInt8]]
    var pictureSets: [[UInt8]]

    /// Parses an `avcC` record with 4-byte NAL lengths; nil for anything else.
    init?(avcC data: [UInt8]) {
        guard data.count >= 7, data[0] == 1, data[4] & 3 == 3 else { return nil }
        var offset = 6
        func sets(count: Int) -> [[UInt8]]? {
            var result: [[UInt8]] = []
            for _ in 0..<count {
                guard offset + 2 <= data.count else { return nil }
                let length = Int(data[offset]) << 8 | Int(data[offset + 1])
                offset += 2
                guard length > 0, offset + length <= data.count else { return nil }
                result.append(Array(data[offset..<offset + length]))
                offset += length
            }
            return result
        }
        guard let sps = sets(count: Int(data[5] & 0x1F)) else { return nil }
        guard offset < data.count else { return nil }
        let ppsCount = Int(data[offset])
        offset += 1
        guard let pps = sets(count: ppsCount) else { return nil }
        self.sequenceSets = sps
        self.pictureSets = pps
    }

    init(sequenceSets: [[UInt8]], pictureSets: [[UInt8]]) {
        self.sequenceSets = sequenceSets
        self.pictureSets = pictureSets
    }

    /// The ids used by any SPS or PPS (`seq_parameter_set_id`, `pic_parameter_set_id`).
    var usedIDs: Set<Int> {
        var ids = Set<Int>()
        for sps in sequenceSets { if let id = Self.firstExpGolomb(sps, skipping: 4) { ids.insert(id) } }
        for pps in pictureSets { if let id = Self.firstExpGolomb(pps, skipping: 1) { ids.insert(id) } }
        return ids
    }

    /// Only the PPS with an id in `pictureIDs` and the SPS they name.
    func keeping(pictureIDs: Set<Int>) -> AVCParameterSets {
        let pps = pictureSets.filter { Self.firstExpGolomb($0, skipping: 1).map(pictureIDs.contains) ?? false }
        let spsIDs = Set(pps.compactMap { Self.expGolombs($0, skipping: 1, count: 2)?.last })
        let sps = sequenceSets.filter { Self.firstExpGolomb($0, skipping: 4).map(spsIDs.contains) ?? false }
        return AVCParameterSets(sequenceSets: sps, pictureSets: pps)
    }

    /// The smallest id in 0...31 (x264's `sps-id` range) no SPS or PPS uses.
    var freeID: Int? { (0...31).first { !usedIDs.contains($0) } }

    /// One record holding these sets, then `other`'s (the header bytes come from the first SPS).
    func merged(with other: AVCParameterSets) -> [UInt8]? {
        let units = (sequenceSets + other.sequenceSets + pictureSets + other.pictureSets).map { ArraySlice($0) }
        return AVCConfiguration.record(from: units)
    }

    /// The first unsigned Exp-Golomb value after `skipping` bytes of a NAL unit (emulation
    /// prevention bytes removed).
    static func firstExpGolomb(_ unit: [UInt8], skipping: Int) -> Int? {
        expGolombs(unit, skipping: skipping, count: 1)?.first
    }

    /// The first `count` unsigned Exp-Golomb values after `skipping` bytes of a NAL unit
    /// (emulation prevention bytes removed); nil when the unit is too short.
    static func expGolombs(_ unit: [UInt8], skipping: Int, count: Int) -> [Int]? {
        // A header's first values fit in its first bytes; a slice's data is never unescaped.
        var reader = H264BitReader(H264RBSP.unescaped(unit.dropFirst(skipping).prefix(32)))
        var values: [Int] = []
        for _ in 0..<count {
            guard let value = reader.ue() else { return nil }
            values.append(value)
        }
        return values
    }
}
