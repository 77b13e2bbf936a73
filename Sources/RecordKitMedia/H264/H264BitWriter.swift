/// Writes the bits of an H.264 RBSP, most significant bit first, with the Exp-Golomb codes of
/// ITU-T H.264 9.1 and the RBSP trailing bits (7.3.2.11). ``H264RBSP/escaped(_:)`` then adds
/// emulation prevention for a NAL unit.
struct H264BitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 0  // bits used in the last byte, 0 when it is full (or there is none)

    init() {}

    /// Bits written so far.
    var bitCount: Int { bytes.count * 8 - (used == 0 ? 0 : 8 - used) }

    /// One bit (u(1)): any non-zero value writes 1.
    mutating func bit(_ value: Int) {
        if used == 0 { bytes.append(0) }
        if value != 0 { bytes[bytes.count - 1] |= 0x80 >> UInt8(used) }
        used = (used + 1) & 7
    }

    /// The low `count` bits of `value` (u(n)), most significant first.
    mutating func bits(_ value: Int, _ count: Int) {
        precondition(count >= 0 && count <= 32, "H264BitWriter: \(count) bits")
        for shift in stride(from: count - 1, through: 0, by: -1) { bit((value >> shift) & 1) }
    }

    /// An unsigned Exp-Golomb code (ue(v)); `value` >= 0.
    mutating func ue(_ value: Int) {
        precondition(value >= 0 && value < Int(UInt32.max), "H264BitWriter: ue(\(value))")
        let coded = value + 1
        let length = Int.bitWidth - coded.leadingZeroBitCount
        bits(0, length - 1)
        bits(coded, length)
    }

    /// A signed Exp-Golomb code (se(v)).
    mutating func se(_ value: Int) {
        ue(value > 0 ? 2 * value - 1 : -2 * value)
    }

    /// Copies `count` bits from `reader`; false when it has fewer.
    mutating func copy(_ count: Int, from reader: inout H264BitReader) -> Bool {
        guard reader.remaining >= count else { return false }
        for _ in 0..<count { bit(reader.bit() ?? 0) }
        return true
    }

    /// rbsp_trailing_bits(): a one, then zeros up to the byte boundary.
    mutating func trailingBits() {
        bit(1)
        while used != 0 { bit(0) }
    }
}
