import Glibc

/// Finishes a fragmented MP4 (as the file handler writes it: `ftyp`, a `moov` without samples,
/// then `moof` + `mdat` pairs) into a plain MP4 where it lies, without copying its media: the
/// full index (`moov`) is appended at the end, then one 16-byte write turns the old header and
/// every fragment into the payload of a single `mdat`. The result is `ftyp`, `mdat`, `moov`: a
/// standard MP4 with its index last, as libavformat writes without `+faststart`.
///
/// Cost: reads the fragments' headers (`moof`, about 1 KB a second of recording) and writes the
/// index; media bytes are neither read nor written, so the time and the extra space do not grow
/// with the media's size (the index grows with the number of samples, about 2 MB an hour).
///
/// Crash safety: the file plays at every moment. Until the final write the old fragmented header
/// comes first and players use it (a second `moov` at the end is skipped as a duplicate); the
/// final write is 16 bytes in the file's first sector, after an `fsync` of the index. Running it
/// again on a file it was interrupted on, or on a file that a crash cut short (a partial last
/// fragment keeps the samples whose bytes are complete), finishes it the same way.
///
/// Threading: a blocking call on the caller's thread; one call per file at a time.
package enum MP4IndexAppender {
    /// What ``finalize(_:chapters:)`` did.
    package struct Outcome: Sendable, Equatable {
        /// Samples indexed, all tracks together (0 when the file was already plain).
        package var samples: Int
        /// Fragments read.
        package var fragments: Int
        /// Bytes of the index written at the end.
        package var indexBytes: Int
        /// Bytes cut from the end: an unfinished fragment's remains or an earlier attempt's index.
        package var truncatedBytes: Int64
        /// Whether the file already was a plain MP4 (nothing was written).
        package var wasPlain: Bool
    }

    /// Finalizes the fragmented MP4 at `path` in place, with `chapters` (a Nero `chpl` list,
    /// replacing any). Throws ``MediaError`` when the file cannot be read or written or is not a
    /// fragmented MP4; the file then still plays as it did.
    @discardableResult
    package static func finalize(_ path: String, chapters: [MediaChapter] = []) throws(MediaError) -> Outcome {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw MediaError("opening \(path) to write its index", code: -errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw MediaError("reading the size of \(path)", code: -errno) }
        let fileSize = UInt64(info.st_size)

        var movie: [UInt8]?
        var movieOffset: UInt64 = 0
        var defaults: [UInt32: MP4FragmentReader.Defaults] = [:]
        var tables: [UInt32: MP4TrackTable] = [:]
        var fragments = 0
        var validEnd: UInt64 = 0
        var offset: UInt64 = 0
        scan: while offset + 8 <= fileSize {
            let header = try read(fd, at: offset, count: Int(min(16, fileSize - offset)), path: path)
            var size = UInt64(header.be32(at: 0))
            let type = MP4Box.fourCC(header, at: 4)
            if size == 1 {
                guard header.count >= 16 else { break }
                size = header.be64(at: 8)
            } else if size == 0 {
                size = fileSize - offset
            }
            guard size >= 8 else { break }
            let complete = offset + size <= fileSize
            switch type {
            case "ftyp" where offset == 0, "free", "skip", "mfra", "uuid", "sidx", "styp":
                break
            case "moov":
                guard complete else { break scan }
                guard movie == nil else { break scan }  // an index an interrupted run appended: replaced
                let bytes = try read(fd, at: offset, count: Int(size), path: path)
                let root = try MP4Box.children(of: bytes, in: 0..<bytes.count)[0]
                guard try MP4Box.child("mvex", of: root, in: bytes) != nil else {
                    return Outcome(samples: 0, fragments: 0, indexBytes: 0, truncatedBytes: 0, wasPlain: true)
                }
                movie = bytes
                movieOffset = offset
                defaults = try MP4FragmentReader.defaults(inMovie: bytes)
            case "moof":
                guard complete, movie != nil, size < 64 << 20 else { break scan }
                let bytes = try read(fd, at: offset, count: Int(size), path: path)
                let dataEnd = try MP4FragmentReader.read(bytes, at: offset, defaults: defaults, into: &tables, fileEnd: fileSize)
                fragments += 1
                validEnd = max(offset + size, dataEnd)
                offset += size
                continue scan
            case "mdat":
                if !complete { break scan }  // validEnd already covers its complete samples
            default:
                if offset == 0 || movie == nil {
                    throw MediaError("\(path) is not a fragmented MP4 (it starts with '\(type)')")
                }
                break scan
            }
            guard complete else { break }
            offset += size
            validEnd = offset
        }
        guard let movie else { throw MediaError("\(path) is not a fragmented MP4: it has no 'moov' header") }
        guard movieOffset + 16 <= validEnd, movie.count >= 16 else { throw MediaError("\(path) has no media to index") }

        let moov = try MP4MovieBuilder.build(movie: movie, tables: tables, chapters: chapters)
        let truncated = Int64(fileSize) - Int64(validEnd)
        if validEnd < fileSize, ftruncate(fd, off_t(validEnd)) != 0 {
            throw MediaError("cutting the unfinished end of \(path)", code: -errno)
        }
        try write(fd, moov, at: validEnd, path: path)
        guard fsync(fd) == 0 else { throw MediaError("syncing the index of \(path)", code: -errno) }

        // The commit: the old header becomes the start of one mdat that spans every fragment.
        var commit = MP4BoxWriter()
        commit.u32(1)
        commit.raw("mdat".utf8)
        commit.u64(validEnd - movieOffset)
        try write(fd, commit.bytes, at: movieOffset, path: path)
        guard fsync(fd) == 0 else { throw MediaError("syncing \(path)", code: -errno) }
        return Outcome(samples: tables.values.reduce(0) { $0 + $1.sampleCount }, fragments: fragments,
                       indexBytes: moov.count, truncatedBytes: truncated, wasPlain: false)
    }

    private static func read(_ fd: Int32, at offset: UInt64, count: Int, path: String) throws(MediaError) -> [UInt8] {
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

    private static func write(_ fd: Int32, _ bytes: [UInt8], at offset: UInt64, path: String) throws(MediaError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw MediaError("writing the index of \(path)", code: n < 0 ? -errno : -EIO) }
            done += n
        }
    }
}
