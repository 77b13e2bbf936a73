/// Reads the bits of an H.264 RBSP (emulation prevention already removed, ``H264RBSP``), most
/// significant bit first, with the Exp-Golomb codes of ITU-T H.264 9.1. Every read returns nil
/// past the end, so a truncated unit fails instead of trapping. A value type: copy it to look
/// ahead.
struct H264BitReader {
    let bytes: [UInt8]
    /// The position of the next bit, from the start of `bytes`.
    private(set) var position = 0

    init(_ bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    /// Bits left to read.
    var remaining: Int { bytes.count * 8 - position }

    /// One bit (u(1)).
    mutating func bit() -> Int? {
        guard position < bytes.count * 8 else { return nil }
        defer { position += 1 }
        return Int(bytes[position >> 3] >> (7 - UInt8(position & 7))) & 1
    }

    /// `count` bits as an unsigned number (u(n)), `count` <= 32.
    mutating func bits(_ count: Int) -> Int? {
        guard count >= 0, count <= 32, remaining >= count else { return nil }
        var value = 0
        for _ in 0..<count { value = value << 1 | (bit() ?? 0) }
        return value
    }

    /// An unsigned Exp-Golomb code (ue(v)).
    mutating func ue() -> Int? {
        var zeros = 0
        while true {
            guard let b = bit() else { return nil }
            if b == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        guard let tail = bits(zeros) else { return nil }
        return (1 << zeros) - 1 + tail
    }

    /// A signed Exp-Golomb code (se(v)).
    mutating func se() -> Int? {
        guard let k = ue() else { return nil }
        return k & 1 == 1 ? (k + 1) / 2 : -(k / 2)
    }

    /// Skips `count` bits; false when fewer are left.
    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        position += count
        return true
    }
}
