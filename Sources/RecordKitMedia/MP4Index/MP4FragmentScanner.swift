import Glibc

/// Reads a fragmented MP4's layout and sample lists as it grows: the header (`moov`), then each
/// complete fragment (`moof` + `mdat`) once. The file handler advances it once a second while
/// recording (the fragments just written are in the page cache; about 1 KB a second), so that
/// finalizing reads only the last second's fragments; ``MP4IndexAppender`` also runs one from
/// the start of a file (recovery). Holds the sample tables: about 2 MB an hour, the size of the
/// index it will write.
///
/// Threading: not thread-safe; one owner at a time (the file handler's serial path, then its
/// finalizer).
package final class MP4FragmentScanner: @unchecked Sendable {
    /// The fragmented header, once read.
    private(set) var movie: [UInt8]?
    /// Where the header starts in the file.
    private(set) var movieOffset: UInt64 = 0
    /// Whether the file turned out to be a plain MP4 already (a `moov` without `mvex`).
    private(set) var isPlain = false
    /// The tracks' samples so far.
    private(set) var tables: [UInt32: MP4TrackTable] = [:]
    /// Fragments read.
    private(set) var fragments = 0
    /// The end of what was read and is kept: the next box starts here.
    private(set) var validEnd: UInt64 = 0
    private var defaults: [UInt32: MP4FragmentReader.Defaults] = [:]
    private var offset: UInt64 = 0
    private var stopped = false

    /// A scanner at the start of a file.
    package init() {}

    /// Whether the MP4 at `path` holds any media: a plain MP4, or a fragmented one with at least
    /// one fragment. A fragmented file killed after its header (`moov`) was written but before
    /// its first fragment holds none, and must be reported as empty rather than delivered as a
    /// file that plays nothing. A file that cannot be read counts as holding media, so that
    /// whoever finalizes it says what is wrong with it.
    package static func holdsMedia(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        let scanner = MP4FragmentScanner()
        do { try scanner.advance(fd: fd, path: path, final: true) } catch { return true }
        return scanner.isPlain || scanner.fragments > 0
    }

    /// Reads on from where the last call stopped, in `fd` (open for reading, `path` names it in
    /// errors). Without `final` only whole fragments are taken, so it can run while the muxer is
    /// writing; with `final` (the file is complete, or a crash cut it) a fragment whose `mdat`
    /// was cut short gives its complete samples, and whatever follows the last fragment (an
    /// unfinished box, an index an interrupted finalizing appended) is left beyond ``validEnd``.
    package func advance(fd: Int32, path: String, final: Bool) throws(MediaError) {
        guard !stopped, !isPlain else { return }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw MediaError("reading the size of \(path)", code: -errno) }
        let fileSize = UInt64(info.st_size)
        scan: while offset + 8 <= fileSize {
            guard let box = try Self.header(fd, at: offset, fileSize: fileSize, path: path) else { break }
            let complete = offset + box.size <= fileSize
            switch box.type {
            case "ftyp" where offset == 0, "free", "skip", "mfra", "uuid", "sidx", "styp":
                guard complete else { break scan }
            case "moov":
                guard complete else { break scan }
                guard movie == nil else { stopped = final; break scan }  // an index an interrupted run appended: replaced
                let bytes = try Self.read(fd, at: offset, count: Int(box.size), path: path)
                let root = try MP4Box.children(of: bytes, in: 0..<bytes.count)[0]
                guard try MP4Box.child("mvex", of: root, in: bytes) != nil else {
                    isPlain = true
                    return
                }
                movie = bytes
                movieOffset = offset
                defaults = try MP4FragmentReader.defaults(inMovie: bytes)
            case "moof":
                guard complete, movie != nil, box.size < 64 << 20 else { break scan }
                // While recording, a fragment counts once its mdat is complete too.
                let dataBox = try Self.header(fd, at: offset + box.size, fileSize: fileSize, path: path)
                let dataComplete = dataBox.map { $0.type == "mdat" && offset + box.size + $0.size <= fileSize } ?? false
                guard final || dataComplete else { break scan }
                let bytes = try Self.read(fd, at: offset, count: Int(box.size), path: path)
                let dataEnd = try MP4FragmentReader.read(bytes, at: offset, defaults: defaults, into: &tables, fileEnd: fileSize)
                fragments += 1
                offset += box.size
                validEnd = max(offset, dataEnd)
                if let dataBox, dataComplete {
                    offset += dataBox.size
                    validEnd = offset
                } else if final {
                    stopped = true
                    break scan
                }
                continue scan
            case "mdat":
                guard complete else { break scan }
            default:
                if offset == 0 || movie == nil {
                    throw MediaError("\(path) is not a fragmented MP4 (it starts with '\(box.type)')")
                }
                if final { stopped = true }
                break scan
            }
            offset += box.size
            validEnd = offset
        }
    }

    /// The type and size of the box whose header is at `offset`; nil when the header is cut short.
    private static func header(_ fd: Int32, at offset: UInt64, fileSize: UInt64, path: String) throws(MediaError) -> (type: String, size: UInt64)? {
        guard offset + 8 <= fileSize else { return nil }
        let header = try read(fd, at: offset, count: Int(min(16, fileSize - offset)), path: path)
        var size = UInt64(header.be32(at: 0))
        if size == 1 {
            guard header.count >= 16 else { return nil }
            size = header.be64(at: 8)
        } else if size == 0 {
            size = fileSize - offset
        }
        guard size >= 8 else { return nil }
        return (MP4Box.fourCC(header, at: 4), size)
    }

    static func read(_ fd: Int32, at offset: UInt64, count: Int, path: String) throws(MediaError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw MediaError("reading \(path)", code: n < 0 ? -errno : -EIO) }
            done += n
        }
        return bytes
    }
}
