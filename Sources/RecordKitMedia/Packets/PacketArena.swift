import Glibc
import RecordKit
import Synchronization

/// A ring of memory of its own for encoded packets that live long and leave in the order they
/// came (the replay buffer's last N seconds): ``copy(_:)`` puts a packet's bytes at the ring's
/// head, and the memory comes back when the buffer that holds them goes away.
///
/// Why not malloc: an encoder's packets are allocated between short-lived allocations of every
/// size in the same arenas; held for a minute and freed by another thread, they leave holes
/// that malloc's free lists keep (measured in the hour-long soak: malloc's free memory grew
/// from 3 to 18 MB). Here the pages behind packets that left are given back to the kernel
/// (`MADV_DONTNEED`) about every ``releaseBatch`` bytes, so resident memory follows what the
/// ring holds, and nothing fragments.
///
/// The ring is a private anonymous mapping of ``capacity`` bytes reserved up front
/// (`MAP_NORESERVE`: only pages written are resident). Memory frees in allocation order: a
/// buffer released out of order (a save still holds an older packet) is reclaimed when every
/// older one is. When the ring has no room (``copy(_:)`` returns nil), the caller keeps the
/// original buffer: nothing is ever lost for want of ring space.
///
/// Thread-safe: copies and releases may come from any thread.
package final class PacketArena: @unchecked Sendable {
    // @unchecked Sendable: `base` and `capacity` are immutable; the ring's state is under `state`.
    /// Bytes reserved.
    package let capacity: Int
    /// Freed bytes that make the arena give whole pages back to the kernel.
    package static let releaseBatch = 1 << 20
    private static let alignment = 64
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
    private let base: UnsafeMutableRawPointer

    private struct Block {
        var offset: Int
        var length: Int
        var released = false
        var end: Int { offset + length }
    }

    private struct State {
        /// Live blocks in allocation order, from `first`; released ones stay until every older one is.
        var blocks: [Block] = []
        var first = 0
        /// Sequence number of `blocks[first]`.
        var firstSequence = 0
        /// Bytes in live blocks.
        var bytes = 0
        /// Bytes freed since pages were last given back.
        var freedSinceRelease = 0
        var liveCount: Int { blocks.count - first }
    }
    private let state = Mutex(State())

    /// Reserves `capacity` bytes of address space (rounded up to pages). Nil when the system
    /// refuses the mapping.
    package init?(capacity: Int) {
        let page = Self.pageSize
        let size = max(page, (capacity + page - 1) / page * page)
        guard let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
              p != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        self.base = p
        self.capacity = size
    }

    deinit { munmap(base, capacity) }

    /// Bytes held by live buffers (aligned sizes).
    package var bytes: Int { state.withLock { $0.bytes } }

    /// Buffers alive.
    package var count: Int { state.withLock { $0.liveCount } }

    /// A buffer holding a copy of `bytes` in the ring, or nil when the ring has no room (the
    /// caller keeps its own buffer then) or `bytes` is empty.
    package func copy(_ bytes: UnsafeRawBufferPointer) -> MediaBuffer? {
        guard bytes.count > 0, let source = bytes.baseAddress else { return nil }
        let length = (bytes.count + Self.alignment - 1) / Self.alignment * Self.alignment
        guard let (offset, sequence) = state.withLock({ Self.allocate(length, capacity: capacity, in: &$0) }) else {
            return nil
        }
        let destination = base + offset
        destination.copyMemory(from: source, byteCount: bytes.count)
        return MediaBuffer(bytes: UnsafeRawBufferPointer(start: destination, count: bytes.count)) { [self] in
            release(sequence)
        }
    }

    /// Where a block of `length` bytes goes: after the newest block, or at the start when the
    /// end has no room and the oldest block has moved far enough. Nil when neither fits.
    private static func allocate(_ length: Int, capacity: Int, in s: inout State) -> (Int, Int)? {
        let offset: Int
        if s.liveCount == 0 {
            guard length <= capacity else { return nil }
            offset = 0
        } else {
            let oldest = s.blocks[s.first], newest = s.blocks[s.blocks.count - 1]
            if newest.offset >= oldest.offset {
                if capacity - newest.end >= length {
                    offset = newest.end
                } else if oldest.offset >= length {
                    offset = 0
                } else {
                    return nil
                }
            } else {
                guard oldest.offset - newest.end >= length else { return nil }
                offset = newest.end
            }
        }
        let sequence = s.firstSequence + s.liveCount
        s.blocks.append(Block(offset: offset, length: length))
        s.bytes += length
        return (offset, sequence)
    }

    private func release(_ sequence: Int) {
        state.withLock { s in
            let index = s.first + (sequence - s.firstSequence)
            guard index >= s.first, index < s.blocks.count, !s.blocks[index].released else { return }
            s.blocks[index].released = true
            s.bytes -= s.blocks[index].length
            s.freedSinceRelease += s.blocks[index].length
            while s.first < s.blocks.count, s.blocks[s.first].released {
                s.first += 1
                s.firstSequence += 1
            }
            if s.first == s.blocks.count {
                s.blocks.removeAll(keepingCapacity: true)
                s.first = 0
            } else if s.first > 4096, s.first * 2 > s.blocks.count {
                s.blocks.removeFirst(s.first)
                s.first = 0
            }
            if s.freedSinceRelease >= Self.releaseBatch || s.liveCount == 0 {
                s.freedSinceRelease = 0
                releaseFreePages(s)
            }
        }
    }

    /// Gives back the whole pages between the newest block's end and the oldest block's start
    /// (all of the ring when nothing is live).
    private func releaseFreePages(_ s: State) {
        guard s.liveCount > 0 else {
            releasePages(from: 0, to: capacity)
            return
        }
        let oldest = s.blocks[s.first], newest = s.blocks[s.blocks.count - 1]
        if newest.offset >= oldest.offset {
            releasePages(from: newest.end, to: capacity)
            releasePages(from: 0, to: oldest.offset)
        } else {
            releasePages(from: newest.end, to: oldest.offset)
        }
    }

    private func releasePages(from start: Int, to end: Int) {
        let page = Self.pageSize
        let lower = (start + page - 1) / page * page, upper = end / page * page
        guard upper > lower else { return }
        _ = madvise(base + lower, upper - lower, MADV_DONTNEED)
    }

    /// Bytes of the ring resident now (`mincore`), for tests and diagnostics.
    package var residentBytes: Int {
        let pages = capacity / Self.pageSize
        var vector = [UInt8](repeating: 0, count: pages)
        guard mincore(base, capacity, &vector) == 0 else { return 0 }
        return vector.reduce(0) { $0 + Int($1 & 1) } * Self.pageSize
    }
}
