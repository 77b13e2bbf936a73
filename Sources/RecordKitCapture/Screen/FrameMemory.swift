import CX11
import Glibc

/// One contiguous block holding every slot of a ``FramePool``: a System V shared-memory segment
/// the X server can write into (MIT-SHM), or ordinary page-aligned heap memory.
///
/// The segment is marked for removal (`IPC_RMID`) as soon as the X server has attached it, so it
/// disappears when the last attacher detaches, even if the process is killed. Freed on deinit,
/// which runs when the pool and every frame that uses it are gone.
final class FrameMemory: @unchecked Sendable {
    /// Start of the block, page-aligned.
    let base: UnsafeMutableRawPointer
    /// Size of the block in bytes.
    let byteCount: Int
    /// The System V shared-memory id, or nil for heap memory.
    let sharedMemoryID: Int32?

    /// Heap memory of `byteCount` bytes, aligned to a page.
    init(heapByteCount byteCount: Int) {
        self.base = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 4096)
        self.byteCount = byteCount
        self.sharedMemoryID = nil
    }

    /// A new private shared-memory segment of `byteCount` bytes mapped into this process, or nil
    /// when the system refuses one (limits, no SysV IPC).
    init?(sharedByteCount byteCount: Int) {
        let id = shmget(IPC_PRIVATE, byteCount, IPC_CREAT | 0o600)
        guard id >= 0 else { return nil }
        guard let address = shmat(id, nil, 0), address != UnsafeMutableRawPointer(bitPattern: -1) else {
            shmctl(id, IPC_RMID, nil)
            return nil
        }
        self.base = address
        self.byteCount = byteCount
        self.sharedMemoryID = id
    }

    /// Gives the pages of `byteCount` bytes at `offset` (both page-aligned) back to the kernel:
    /// the next touch finds zeroed pages. Shared memory frees its backing store (`MADV_REMOVE`:
    /// the X server's mapping sees the same zeroed pages), heap memory its private pages
    /// (`MADV_DONTNEED`). The caller guarantees nobody uses the range meanwhile.
    func releasePages(offset: Int, byteCount: Int) {
        _ = madvise(base + offset, byteCount, sharedMemoryID != nil ? MADV_REMOVE : MADV_DONTNEED)
    }

    /// Bytes of `byteCount` at `offset` (page-aligned) that are resident now (`mincore`).
    func residentBytes(offset: Int, byteCount: Int) -> Int {
        let pages = (byteCount + 4095) / 4096
        var vector = [UInt8](repeating: 0, count: pages)
        guard mincore(base + offset, byteCount, &vector) == 0 else { return 0 }
        return vector.reduce(0) { $0 + Int($1 & 1) } * 4096
    }

    /// Marks the segment for removal once everyone detached. Call after the X server attached it
    /// (or failed to). Idempotent.
    func markForRemoval() {
        if let sharedMemoryID { shmctl(sharedMemoryID, IPC_RMID, nil) }
    }

    deinit {
        if sharedMemoryID != nil {
            markForRemoval()
            shmdt(base)
        } else {
            base.deallocate()
        }
    }
}
