import Glibc
import RecordKitSupport

/// Finishes a fragmented MP4 (as the file handler writes it: `ftyp`, a `moov` without samples,
/// then `moof` + `mdat` pairs) into a plain MP4 where it lies, without copying its media: the
/// full index (`moov`) is appended at the end, then one 16-byte write turns the old header and
/// every fragment into the payload of a single `mdat`. The result is `ftyp`, `mdat`, `moov`: a
/// standard MP4 with its index last, as libavformat writes without `+faststart`.
///
/// Cost: reads the fragments' headers (`moof`, about 1 KB a second of recording; with a
/// ``MP4FragmentScanner`` kept while recording, only the last second's) and writes the index;
/// media bytes are neither read nor written, so the extra space is the index alone (about 2 MB
/// an hour) and the time does not depend on the media's size.
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
        /// Seconds spent reading the fragments' headers, building the index, and writing and
        /// syncing it (with the final 16 bytes).
        package var readSeconds = 0.0, buildSeconds = 0.0, writeSeconds = 0.0
    }

    /// Finalizes the fragmented MP4 at `path` in place, with `chapters` (a Nero `chpl` list,
    /// replacing any). `scanner`, when the writer kept one while recording, has read all but
    /// the last fragments already; without it the whole file's fragment headers are read. Throws ``MediaError`` when the file cannot be read or written or is not a
    /// fragmented MP4; the file then still plays as it did.
    @discardableResult
    package static func finalize(_ path: String, chapters: [MediaChapter] = [], scanner: MP4FragmentScanner? = nil) throws(MediaError) -> Outcome {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw MediaError("opening \(path) to write its index", code: -errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw MediaError("reading the size of \(path)", code: -errno) }
        let fileSize = UInt64(info.st_size)
        let began = MonotonicClock.seconds()

        let scan = scanner ?? MP4FragmentScanner()
        try scan.advance(fd: fd, path: path, final: true)
        if scan.isPlain { return Outcome(samples: 0, fragments: 0, indexBytes: 0, truncatedBytes: 0, wasPlain: true) }
        guard let movie = scan.movie else { throw MediaError("\(path) is not a fragmented MP4: it has no 'moov' header") }
        let movieOffset = scan.movieOffset, validEnd = scan.validEnd, tables = scan.tables, fragments = scan.fragments
        guard movieOffset + 16 <= validEnd, movie.count >= 16 else { throw MediaError("\(path) has no media to index") }

        let scanned = MonotonicClock.seconds()
        let moov = try MP4MovieBuilder.build(movie: movie, tables: tables, chapters: chapters)
        let built = MonotonicClock.seconds()
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
                       indexBytes: moov.count, truncatedBytes: truncated, wasPlain: false,
                       readSeconds: scanned - began, buildSeconds: built - scanned, writeSeconds: MonotonicClock.seconds() - built)
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
