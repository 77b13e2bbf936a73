/// Emulation prevention (ITU-T H.264 7.4.1): inside a NAL unit, `00 00` followed by a byte
/// <= 3 is written as `00 00 03 xx`. These convert between a NAL unit's bytes and its RBSP.
enum H264RBSP {
    /// The RBSP of NAL unit bytes: every emulation prevention byte removed.
    static func unescaped<C: Collection<UInt8>>(_ unit: C) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(unit.count)
        var zeros = 0
        for byte in unit {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// NAL unit bytes for an RBSP: an emulation prevention byte before every byte <= 3 that
    /// follows two zero bytes, and after a final zero byte (7.4.1: a unit never ends in 00).
    static func escaped<C: Collection<UInt8>>(_ rbsp: C) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rbsp.count + rbsp.count / 64 + 1)
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2 && byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        if out.last == 0 { out.append(3) }
        return out
    }
}
