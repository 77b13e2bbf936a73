/// One ISO BMFF box inside a byte buffer: its type and where its header and payload lie.
///
/// Written here rather than taken from a package: no Swift package on the machine's list reads
/// or writes MP4 boxes, and the index writer needs only sizes, types and big-endian integers.
struct MP4Box {
    /// The four-character type (`moov`, `trak`, …).
    let type: String
    /// Offset of the box's first byte in the buffer it was read from.
    let start: Int
    /// 8, or 16 for a 64-bit size.
    let headerSize: Int
    /// The whole box's size in bytes.
    let size: Int

    /// The bytes after the header.
    var payload: Range<Int> { (start + headerSize)..<(start + size) }
    /// The bytes of the whole box.
    var range: Range<Int> { start..<(start + size) }

    /// The boxes that follow each other in `range` of `bytes`. Throws when a size runs past
    /// the range (a damaged index).
    static func children(of bytes: [UInt8], in range: Range<Int>) throws(MediaError) -> [MP4Box] {
        var boxes: [MP4Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            var size = Int(bytes.be32(at: offset))
            var header = 8
            if size == 1 {
                guard offset + 16 <= range.upperBound else { break }
                size = Int(bytes.be64(at: offset + 8))
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            let type = fourCC(bytes, at: offset + 4)
            guard size >= header, offset + size <= range.upperBound else {
                throw MediaError("MP4 index: box '\(type)' at \(offset) (\(size) bytes) runs past its parent")
            }
            boxes.append(MP4Box(type: type, start: offset, headerSize: header, size: size))
            offset += size
        }
        return boxes
    }

    /// The first child of type `type` in `box`'s payload, or nil.
    static func child(_ type: String, of box: MP4Box, in bytes: [UInt8]) throws(MediaError) -> MP4Box? {
        try children(of: bytes, in: box.payload).first { $0.type == type }
    }

    /// The four characters at `offset` (Latin-1, so any byte gives a character).
    static func fourCC(_ bytes: [UInt8], at offset: Int) -> String {
        String(bytes[offset..<(offset + 4)].map { Character(Unicode.Scalar($0)) })
    }
}

extension Array where Element == UInt8 {
    /// The big-endian 16-bit value at `offset`; the caller checks the bounds.
    func be16(at offset: Int) -> UInt16 { UInt16(self[offset]) << 8 | UInt16(self[offset + 1]) }

    /// The big-endian 32-bit value at `offset`; the caller checks the bounds.
    func be32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }

    /// The big-endian 64-bit value at `offset`; the caller checks the bounds.
    func be64(at offset: Int) -> UInt64 { UInt64(be32(at: offset)) << 32 | UInt64(be32(at: offset + 4)) }
}
