import RecordKit
import Synchronization

/// A recycling pool of fixed-size float blocks for PCM sample buffers.
///
/// ``acquire()`` hands out a block (reusing a returned one when it can); a block goes back with
/// ``release(_:)``, normally from a `MediaBuffer`'s release action when the last handler lets go
/// of the sample buffer. In steady state no block is allocated. Up to `maxFree` idle blocks are
/// kept; more are freed. Thread-safe: blocks may come back on any thread. A block that is out
/// keeps the pool alive through its release closure, so the pool may be dropped at any time.
final class PCMBlockPool: Sendable {
    /// Floats per block (frames × channels).
    let floatsPerBlock: Int
    private let maxFree: Int
    /// Addresses of idle blocks (raw pointers are not `Sendable`; addresses are).
    private let free = Mutex<[UInt]>([])

    /// Creates an empty pool of blocks of `floatsPerBlock` floats, keeping at most `maxFree` idle.
    init(floatsPerBlock: Int, maxFree: Int = 64) {
        precondition(floatsPerBlock > 0, "PCMBlockPool needs a positive block size")
        self.floatsPerBlock = floatsPerBlock
        self.maxFree = maxFree
        free.withLock { $0.reserveCapacity(maxFree) }
    }

    /// A block of ``floatsPerBlock`` floats, contents unspecified (stale samples when reused).
    func acquire() -> UnsafeMutablePointer<Float> {
        if let address = free.withLock({ $0.popLast() }), let block = UnsafeMutablePointer<Float>(bitPattern: address) {
            return block
        }
        let block = UnsafeMutablePointer<Float>.allocate(capacity: floatsPerBlock)
        block.initialize(repeating: 0, count: floatsPerBlock)
        return block
    }

    /// Gives back a block from ``acquire()``, by address. Call once per block.
    func release(_ address: UInt) {
        let kept = free.withLock { list -> Bool in
            guard list.count < maxFree else { return false }
            list.append(address)
            return true
        }
        if !kept { UnsafeMutablePointer<Float>(bitPattern: address)?.deallocate() }
    }

    /// Wraps the first `floats` floats of `block` (from ``acquire()``) as a `MediaBuffer` whose
    /// release returns the block to this pool.
    func mediaBuffer(for block: UnsafeMutablePointer<Float>, floats: Int) -> MediaBuffer {
        precondition(floats <= floatsPerBlock, "PCMBlockPool block overrun")
        let address = UInt(bitPattern: block)
        return MediaBuffer(bytes: UnsafeRawBufferPointer(start: block, count: floats * MemoryLayout<Float>.stride),
                           release: { [self] in self.release(address) })
    }

    deinit {
        for address in free.withLock({ $0 }) { UnsafeMutablePointer<Float>(bitPattern: address)?.deallocate() }
    }
}
