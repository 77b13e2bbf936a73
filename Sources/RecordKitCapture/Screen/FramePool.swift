import RecordKit
import Synchronization

/// A fixed set of frame buffers carved out of one ``FrameMemory`` block, handed out as
/// ``MediaBuffer``s that come back to the pool when their last reference goes away.
///
/// Thread-safe. `acquire()` never blocks and never allocates pixel memory: when every slot is
/// held it returns nil and the caller drops the frame. Free slots are reused last-in first-out,
/// so only as many slots as are really in flight ever get touched and become resident memory.
/// The memory lives until the pool and every buffer it handed out are gone.
package final class FramePool: Sendable {
    /// Number of slots.
    let slotCount: Int
    /// Distance between slot starts (a multiple of the page size, so each slot is 4096-aligned).
    let slotStride: Int
    /// The block behind every slot.
    let memory: FrameMemory
    private let free: Mutex<[Int]>

    /// A pool of `slotCount` slots of at least `slotByteCount` bytes each, in shared memory when
    /// `shared` (nil if the system refuses the segment), in heap memory otherwise.
    package init?(slotCount: Int, slotByteCount: Int, shared: Bool) {
        let stride = (slotByteCount + 4095) / 4096 * 4096
        let memory: FrameMemory
        if shared {
            guard let segment = FrameMemory(sharedByteCount: stride * slotCount) else { return nil }
            memory = segment
        } else {
            memory = FrameMemory(heapByteCount: stride * slotCount)
        }
        self.slotCount = slotCount
        self.slotStride = stride
        self.memory = memory
        var slots = [Int]()
        slots.reserveCapacity(slotCount)
        slots.append(contentsOf: (0..<slotCount).reversed())  // slot 0 is handed out first
        self.free = Mutex(slots)
    }

    /// Start of slot `index`.
    package func address(ofSlot index: Int) -> UnsafeMutableRawPointer {
        memory.base + index * slotStride
    }

    /// Takes a free slot, or nil when consumers hold every one.
    package func acquire() -> Int? {
        free.withLock { $0.popLast() }
    }

    /// Puts back a slot that was acquired but not handed out as a buffer.
    package func giveBack(_ index: Int) {
        free.withLock { $0.append(index) }
    }

    /// Wraps the first `byteCount` bytes of acquired slot `index` as a buffer; the slot returns
    /// to the pool when the buffer's last reference goes away.
    package func buffer(slot index: Int, byteCount: Int) -> MediaBuffer {
        let bytes = UnsafeRawBufferPointer(start: address(ofSlot: index), count: byteCount)
        let location = memory.sharedMemoryID.map {
            SharedMemoryLocation(systemVSegment: $0, segmentSize: memory.byteCount, offset: index * slotStride)
        }
        return MediaBuffer(bytes: bytes, sharedLocation: location) { [self] in giveBack(index) }
    }
}
