import RecordKit

/// The camera overlay's own frame buffers, for the frames it cannot draw in place (a repeated
/// screen picture under a new camera picture; a source that does not lend writable frames),
/// each with the rectangles where it is stale against the overlay's last delivered frame.
///
/// A buffer that comes back from consumers still holds the frame it carried then: bringing it
/// up to date costs copying its stale rectangles and the screen's new changes, not the whole
/// screen (what ``IncrementalState`` does for X11 grabs). The corner is drawn whole into every
/// frame, so it never needs to be up to date. Buffers are in shared memory when the system
/// gives it (extensions in other processes read frames there). Confined to the capture
/// thread; buffers go back to the pool from any thread.
final class OverlayFramePool {
    /// Frame size in pixels; buffers have `width` × 4 bytes per row.
    let width: Int
    let height: Int
    private let pool: FramePool
    /// Per buffer: rectangles where its pixels may differ from the last delivered frame.
    private var stale: [DirtyRegion]

    /// Eight buffers of `width` × `height`; nil when there is no memory for them.
    init?(width: Int, height: Int) {
        let bytes = width * 4 * height
        guard let pool = FramePool(slotCount: 8, slotByteCount: bytes, shared: true)
                ?? FramePool(slotCount: 8, slotByteCount: bytes, shared: false) else { return nil }
        self.width = width
        self.height = height
        self.pool = pool
        self.stale = Array(repeating: .full(width: width, height: height), count: pool.slotCount)
    }

    /// A free buffer: its index, its pixels, and the rectangles to copy from the current screen
    /// picture to bring it up to date: its stale ones plus `screenChanges`, the screen's changes
    /// since the last delivered frame (nil: unknown, everything). Nil when consumers hold every
    /// buffer: the frame is dropped, and as its changes are not tracked every buffer becomes
    /// stale everywhere.
    func acquire(screenChanges: [PixelRect]?) -> (slot: Int, pixels: UnsafeMutableRawPointer, copy: [PixelRect])? {
        guard let slot = pool.acquire() else {
            markAllStale()
            return nil
        }
        var region = stale[slot]
        if let screenChanges {
            for rect in screenChanges { region.add(rect) }
        } else {
            region = .full(width: width, height: height)
        }
        return (slot, pool.address(ofSlot: slot), region.rects)
    }

    /// The acquired buffer `slot` as a frame's pixels; it returns to the pool when the last
    /// reference goes away.
    func buffer(slot: Int) -> MediaBuffer {
        pool.buffer(slot: slot, byteCount: width * 4 * height)
    }

    /// Records a delivered frame that differs from the one before in `changes` (nil: unknown,
    /// everything), written into buffer `slot`, or drawn in place when `slot` is nil.
    func delivered(changes: [PixelRect]?, slot: Int?) {
        for index in stale.indices where index != slot {
            if let changes {
                for rect in changes { stale[index].add(rect) }
            } else {
                stale[index] = .full(width: width, height: height)
            }
        }
        if let slot { stale[slot].removeAll() }
    }

    /// Every buffer stale everywhere.
    private func markAllStale() {
        for index in stale.indices { stale[index] = .full(width: width, height: height) }
    }
}
