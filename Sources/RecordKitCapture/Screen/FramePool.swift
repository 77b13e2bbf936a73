import RecordKit
import RecordKitSupport
import Synchronization

/// A fixed set of frame buffers carved out of one ``FrameMemory`` block, handed out as
/// ``MediaBuffer``s that come back to the pool when their last reference goes away.
///
/// Thread-safe. `acquire()` never blocks and never allocates pixel memory: when every slot is
/// held it returns nil and the caller drops the frame. Free slots are reused last-in first-out,
/// so only as many slots as are really in flight ever get touched and become resident memory.
/// The memory lives until the pool and every buffer it handed out are gone.
///
/// **Cold slots go back.** A burst (an encoder falling behind on a loaded machine) touches more
/// slots than the steady state needs, and touched pages stayed resident for the whole recording:
/// the X11 pool's 12 slots are 100 MB of shared memory, and the hour-long soaks' shared memory
/// rose 8-24 MB, one 8.3 MB slot with each burst (docs/BENCHMARKS.md). So a slot left free for
/// ``coldAfterNanoseconds`` gives its pages back to the kernel (``FrameMemory/releasePages``),
/// checked at most every ``checkEveryNanoseconds`` by `acquire()` on the capturing thread
/// (a few `madvise` calls, under a millisecond each); the next use finds zeroed pages.
package final class FramePool: Sendable {
    /// Number of slots.
    let slotCount: Int
    /// Distance between slot starts (a multiple of the page size, so each slot is 4096-aligned).
    let slotStride: Int
    /// The block behind every slot.
    let memory: FrameMemory
    /// The free slots (taken from the end), per slot when it was last given back while its
    /// pages are resident (nil: never used, or its pages already went back), and when cold slots
    /// were last looked for: one lock, taken once per `acquire` and per give-back.
    private let state: Mutex<(free: [Int], releasedAt: [UInt64?], lastCheck: UInt64)>
    /// A free slot unused this long gives its pages back (30 s).
    static let coldAfterNanoseconds: UInt64 = 30_000_000_000
    /// How often `acquire()` looks for cold slots (10 s).
    static let checkEveryNanoseconds: UInt64 = 10_000_000_000

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
        self.state = Mutex((free: slots, releasedAt: [UInt64?](repeating: nil, count: slotCount), lastCheck: MonotonicClock.nanoseconds()))
    }

    /// Start of slot `index`.
    package func address(ofSlot index: Int) -> UnsafeMutableRawPointer {
        memory.base + index * slotStride
    }

    /// Takes a free slot, or nil when consumers hold every one. Now and then first gives the
    /// pages of cold slots back (above).
    package func acquire() -> Int? {
        let now = MonotonicClock.nanoseconds()
        return state.withLock { state in
            if now &- state.lastCheck >= Self.checkEveryNanoseconds {
                state.lastCheck = now
                _ = releaseColdSlots(&state, now: now)
            }
            return state.free.popLast()
        }
    }

    /// Puts back a slot that was acquired but not handed out as a buffer.
    package func giveBack(_ index: Int) {
        let now = MonotonicClock.nanoseconds()
        state.withLock { state in
            state.releasedAt[index] = now
            state.free.append(index)
        }
    }

    /// Gives back the pages of every free slot unused for ``coldAfterNanoseconds`` before `now`
    /// (`now` is a parameter for tests); returns how many slots went back. The pool stays
    /// locked meanwhile, so no slot is taken while its pages go.
    @discardableResult
    package func releaseColdSlots(now: UInt64) -> Int {
        state.withLock { releaseColdSlots(&$0, now: now) }
    }

    private func releaseColdSlots(_ state: inout (free: [Int], releasedAt: [UInt64?], lastCheck: UInt64), now: UInt64) -> Int {
        var count = 0
        for index in state.free {
            guard let at = state.releasedAt[index], now >= at, now - at >= Self.coldAfterNanoseconds else { continue }
            state.releasedAt[index] = nil
            memory.releasePages(offset: index * slotStride, byteCount: slotStride)
            count += 1
        }
        return count
    }

    /// Bytes of slot `index` resident now (tests and diagnostics).
    package func residentBytes(ofSlot index: Int) -> Int {
        memory.residentBytes(offset: index * slotStride, byteCount: slotStride)
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
