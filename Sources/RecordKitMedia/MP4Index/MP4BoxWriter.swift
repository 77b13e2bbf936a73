/// Builds ISO BMFF boxes into a byte array: big-endian integers and nested boxes whose 32-bit
/// size is filled in when their body is done. Not thread-safe; a value type.
struct MP4BoxWriter {
    /// What was written so far.
    private(set) var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { bytes.append(UInt8(value >> 8)); bytes.append(UInt8(truncatingIfNeeded: value)) }
    mutating func u32(_ value: UInt32) {
        bytes.append(contentsOf: [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16),
                                  UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)])
    }
    mutating func u64(_ value: UInt64) { u32(UInt32(value >> 32)); u32(UInt32(truncatingIfNeeded: value)) }
    mutating func raw<C: Collection>(_ data: C) where C.Element == UInt8 { bytes.append(contentsOf: data) }

    /// Writes a box of `type` (four ASCII characters) whose payload `body` writes.
    mutating func box(_ type: String, _ body: (inout MP4BoxWriter) -> Void) {
        let start = bytes.count
        u32(0)
        raw(type.utf8.prefix(4))
        body(&self)
        let size = UInt32(bytes.count - start)
        bytes[start] = UInt8(size >> 24)
        bytes[start + 1] = UInt8(truncatingIfNeeded: size >> 16)
        bytes[start + 2] = UInt8(truncatingIfNeeded: size >> 8)
        bytes[start + 3] = UInt8(truncatingIfNeeded: size)
    }

    /// Writes a full box (version and 24-bit flags first).
    mutating func fullBox(_ type: String, version: UInt8, flags: UInt32 = 0, _ body: (inout MP4BoxWriter) -> Void) {
        box(type) { writer in
            writer.u32(UInt32(version) << 24 | (flags & 0xFF_FFFF))
            body(&writer)
        }
    }
}
