import Glibc

/// Shared memory the host announced, mapped read-only into this process. Immutable.
final class MappedRegion: @unchecked Sendable {
    /// Start of the mapping.
    let base: UnsafeRawPointer
    /// Size in bytes.
    let size: Int
    private let isSystemV: Bool

    /// Maps the memfd `fd` (and closes it: the mapping keeps the memory).
    init(memfd fd: Int32, size: Int) throws(WireError) {
        defer { close(fd) }
        guard size > 0 else { throw WireError.malformed("region of size 0") }
        let p = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0)
        guard let p, p != MAP_FAILED else { throw WireError.system("mmap of a \(size)-byte region: \(String(cString: strerror(errno)))") }
        self.base = UnsafeRawPointer(p)
        self.size = size
        self.isSystemV = false
    }

    /// Attaches System V segment `id` read-only.
    init(systemV id: Int32, size: Int) throws(WireError) {
        guard let p = shmat(id, nil, SHM_RDONLY), p != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw WireError.system("shmat of segment \(id): \(String(cString: strerror(errno)))")
        }
        self.base = UnsafeRawPointer(p)
        self.size = size
        self.isSystemV = true
    }

    deinit {
        if isSystemV { shmdt(base) } else { munmap(UnsafeMutableRawPointer(mutating: base), size) }
    }
}
