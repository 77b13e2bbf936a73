/// Where the bytes of a ``MediaBuffer`` lie when they are in memory another process can map: a
/// System V shared-memory segment (the capture pool is one, shared with the X server through
/// MIT-SHM). The recorder uses it to hand frames to out-of-process extensions without a copy.
package struct SharedMemoryLocation: Sendable, Hashable {
    /// The segment's id (`shmget`); attachable by processes of the same user.
    package var systemVSegment: Int32
    /// Size of the whole segment in bytes.
    package var segmentSize: Int
    /// Offset of the buffer's first byte in the segment.
    package var offset: Int

    /// Describes a buffer at `offset` in segment `systemVSegment` of `segmentSize` bytes.
    package init(systemVSegment: Int32, segmentSize: Int, offset: Int) {
        self.systemVSegment = systemVSegment
        self.segmentSize = segmentSize
        self.offset = offset
    }
}
