/// Builds an H.264 `AVCDecoderConfigurationRecord` (the `avcC` box payload, ISO/IEC 14496-15
/// 5.3.3.1) from parameter sets, as MP4, Matroska and FLV carry it.
enum AVCConfiguration {
    /// The NAL units in `data`, which holds NAL units each preceded by a 4-byte big-endian
    /// length (what x264 writes with `annexb=0`). Nil when the data is not in that form.
    static func lengthPrefixedUnits(_ data: [UInt8]) -> [ArraySlice<UInt8>]? {
        var units: [ArraySlice<UInt8>] = []
        var offset = 0
        while offset < data.count {
            guard offset + 4 <= data.count else { return nil }
            let length = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            offset += 4
            guard length > 0, offset + length <= data.count else { return nil }
            units.append(data[offset..<offset + length])
            offset += length
        }
        return units
    }

    /// The `avcC` record for the SPS and PPS found in `units`, with 4-byte NAL lengths.
    /// Nil when there is no SPS or no PPS. For High profiles it adds the 4:2:0 8-bit extension
    /// fields, which is what the encoder produces.
    static func record(from units: [ArraySlice<UInt8>]) -> [UInt8]? {
        let sps = units.filter { $0.first.map { $0 & 0x1F == 7 } ?? false }
        let pps = units.filter { $0.first.map { $0 & 0x1F == 8 } ?? false }
        guard let first = sps.first, first.count >= 4, !pps.isEmpty, sps.count < 32, pps.count < 256 else { return nil }
        let profile = first[first.startIndex + 1]
        var record: [UInt8] = [1, profile, first[first.startIndex + 2], first[first.startIndex + 3],
                               0xFC | 3,                   // 6 reserved bits, lengthSizeMinusOne = 3
                               0xE0 | UInt8(sps.count)]    // 3 reserved bits, numOfSequenceParameterSets
        for unit in sps { record += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        record.append(UInt8(pps.count))
        for unit in pps { record += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        if [100, 110, 122, 144].contains(profile) {
            record += [0xFC | 1,   // chroma_format_idc = 1 (4:2:0)
                       0xF8 | 0,   // bit_depth_luma_minus8
                       0xF8 | 0,   // bit_depth_chroma_minus8
                       0]          // numOfSequenceParameterSetExt
        }
        return record
    }
}
