import CShims
import Glibc
import RecordKit
import RecordKitExtensionSDK

/// The host's shared memory for one extension, and the refs the extension holds.
///
/// Two ways a payload reaches the extension:
/// - **Lent** (no copy): a frame that already lies in System V shared memory (the capture pool)
///   is named by its segment and offset; the host keeps the sample alive until the extension
///   releases its ref. At most ``maxLent`` frames are lent at once, so an extension that keeps
///   frames cannot take the capture pool away from the recording: beyond that, frames are copied.
/// - **Copied**: into a slot of a memfd region. Slot sizes are powers of two from 64 KiB, so a
///   region serves every payload of its size class (audio blocks and packets share small slots;
///   raw frames get slots of their own). A region is created when a class has no free slot, up
///   to ``maxRegionsPerClass``; its memfd goes to the extension once. Pages are only allocated
///   where a payload was written.
///
/// Used from the handler's serial queue only.
final class SharedMemoryArena {
    /// Where a payload is for the extension: what the `sample` message names.
    struct Lease {
        /// The ref the extension releases.
        var ref: Int
        /// The region id.
        var region: Int
        /// Byte offset of the payload in the region.
        var offset: Int
        /// Where the host writes the payload (copied payloads only).
        var pointer: UnsafeMutableRawPointer?
    }

    /// A new region the extension must be told about before the sample that uses it.
    struct Announcement {
        /// The region id.
        var id: Int
        /// Its size in bytes.
        var size: Int
        /// The memfd to send (SCM_RIGHTS), for a region of slots; the arena keeps its own copy open.
        var descriptor: Int32?
        /// The System V segment, for a region the frames are lent from.
        var systemVSegment: Int32?
    }

    private final class Region {
        let id: Int
        let fd: Int32
        let base: UnsafeMutableRawPointer
        let slotSize: Int
        let slotCount: Int
        var free: [Int]
        init(id: Int, fd: Int32, base: UnsafeMutableRawPointer, slotSize: Int, slotCount: Int) {
            self.id = id
            self.fd = fd
            self.base = base
            self.slotSize = slotSize
            self.slotCount = slotCount
            self.free = Array((0..<slotCount).reversed())
        }
        var size: Int { slotSize * slotCount }
    }

    /// The smallest slot.
    static let minimumSlotSize = 64 * 1024
    /// Regions per size class at most: beyond them the extension holds too much and the
    /// sample is not delivered.
    static let maxRegionsPerClass = 4
    /// Frames lent at once at most (see the type's overview).
    static let maxLent = 1

    private var regions: [Region] = []
    private var leases: [Int: (region: Region, slot: Int)] = [:]
    private let lent: LentFrames
    private var segments: [Int32: Int] = [:]  // System V segment → region id
    private var nextRef = 1
    private var nextRegion = 1
    private let name: String

    /// An arena whose memfds are named after `name` (visible in `/proc/<pid>/fd`), lending
    /// frames through `lent`.
    init(name: String, lent: LentFrames) {
        self.name = name
        self.lent = lent
    }

    /// Leases a slot of at least `byteCount` bytes. Returns the lease and, when a new region
    /// had to be made for it, its announcement; nil when every allowed slot of that size is held.
    func lease(byteCount: Int) throws(WireError) -> (Lease, Announcement?)? {
        let slotSize = Self.slotSize(for: byteCount)
        var announcement: Announcement?
        var region = regions.first { $0.slotSize == slotSize && !$0.free.isEmpty }
        if region == nil {
            guard regions.filter({ $0.slotSize == slotSize }).count < Self.maxRegionsPerClass else { return nil }
            let made = try makeRegion(slotSize: slotSize, slotCount: slotSize >= 1 << 20 ? 4 : 32)
            regions.append(made)
            announcement = Announcement(id: made.id, size: made.size, descriptor: made.fd, systemVSegment: nil)
            region = made
        }
        let r = region!
        let slot = r.free.removeLast()
        let ref = takeRef()
        leases[ref] = (r, slot)
        return (Lease(ref: ref, region: r.id, offset: slot * r.slotSize, pointer: r.base + slot * r.slotSize), announcement)
    }

    /// Lends `sample`, whose bytes lie at `location`, without a copy; nil when ``maxLent``
    /// frames are already lent (copy it instead).
    func lend(_ sample: SampleBuffer, at location: SharedMemoryLocation) -> (Lease, Announcement?)? {
        guard lent.count < Self.maxLent else { return nil }
        var announcement: Announcement?
        let region: Int
        if let known = segments[location.systemVSegment] {
            region = known
        } else {
            region = nextRegion
            nextRegion += 1
            segments[location.systemVSegment] = region
            announcement = Announcement(id: region, size: location.segmentSize, descriptor: nil, systemVSegment: location.systemVSegment)
        }
        let ref = takeRef()
        lent.add(sample, ref: ref)
        return (Lease(ref: ref, region: region, offset: location.offset, pointer: nil), announcement)
    }

    /// Ends `ref`: its slot is free again, or its lent sample is let go; false when no such ref
    /// is out (a protocol violation).
    func release(_ ref: Int) -> Bool {
        if let (region, slot) = leases.removeValue(forKey: ref) {
            region.free.append(slot)
            return true
        }
        return lent.remove(ref)
    }

    private func takeRef() -> Int {
        defer { nextRef += 1 }
        return nextRef
    }

    private func makeRegion(slotSize: Int, slotCount: Int) throws(WireError) -> Region {
        let id = nextRegion
        nextRegion += 1
        let fd = cshim_memfd_create("recordkit-extension-\(name)-\(id)")
        guard fd >= 0 else { throw WireError.system("memfd_create: \(String(cString: strerror(errno)))") }
        let size = slotSize * slotCount
        guard ftruncate(fd, off_t(size)) == 0 else {
            let e = errno
            close(fd)
            throw WireError.system("ftruncate of a \(size)-byte memfd: \(String(cString: strerror(e)))")
        }
        guard let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            let e = errno
            close(fd)
            throw WireError.system("mmap of a \(size)-byte memfd: \(String(cString: strerror(e)))")
        }
        return Region(id: id, fd: fd, base: p, slotSize: slotSize, slotCount: slotCount)
    }

    /// The slot size for a payload: the next power of two, at least ``minimumSlotSize``.
    static func slotSize(for byteCount: Int) -> Int {
        var size = minimumSlotSize
        while size < byteCount { size <<= 1 }
        return size
    }

    deinit {
        for r in regions {
            munmap(r.base, r.size)
            close(r.fd)
        }
    }
}
