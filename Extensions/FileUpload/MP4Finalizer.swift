import Glibc
import RecordKit
import RecordKitMedia
import RecordKitSupport

/// Turns the fragmented MP4 written while recording into a plain MP4.
///
/// By default in place and without copying the media (``MP4IndexAppender``): the index
/// (`moov`) is appended at the end and the fragments become one `mdat`, so finishing takes the
/// same time for a minute and for ten hours and needs no free space beyond the index (about
/// 2 MB an hour). With `faststart` (`--faststart`, for files published on the web that should
/// start playing before they are downloaded) the index goes first: the file is remuxed into a
/// hidden temporary file next to it, `fsync`ed and renamed over, which reads and writes the
/// whole recording and needs a second copy's free space.
enum MP4Finalizer {
    /// The temporary file used while finalizing `path`: `.<name>.finalizing.mp4` beside it.
    static func temporaryPath(for path: String) -> String {
        PathName.directory(of: path) + "/." + PathName.lastComponent(of: path) + ".finalizing.mp4"
    }

    /// Finalizes `path` where it is, with `chapters` (and the `scanner` its writer kept). On failure `path` still plays as the
    /// fragmented file it was (and the temporary file of `faststart` is removed).
    static func finalize(_ path: String, chapters: [MediaChapter] = [], faststart: Bool = false,
                         scanner: MP4FragmentScanner? = nil) throws(BroadcastError) {
        guard faststart else {
            do {
                try MP4IndexAppender.finalize(path, chapters: chapters, scanner: scanner)
            } catch {
                throw BroadcastError(.outputFailed, "finalizing \(path) failed: \(error.message); the fragmented MP4 was kept and plays as it is")
            }
            return
        }
        let temporary = temporaryPath(for: path)
        do {
            try Remuxer.remux(from: path, to: temporary, container: "mp4", options: ["movflags": "+faststart"], chapters: chapters)
        } catch {
            unlink(temporary)
            throw BroadcastError(.outputFailed, "finalizing \(path) failed: \(error.message); the fragmented MP4 was kept and plays as it is")
        }
        do throws(FileSystemError) {
            try AtomicFile.publish(temporary: temporary, as: path, replacing: true)
        } catch {
            unlink(temporary)
            throw BroadcastError(.outputFailed, "finalizing \(path) failed: \(error); the fragmented MP4 was kept and plays as it is")
        }
    }

    /// Moves a finished working file to `destination`, so the destination is complete or
    /// untouched. An MP4 (`mp4`) is finalized in place and renamed (constant time; across file
    /// systems it is copied through a temporary file beside the destination), or with
    /// `faststart` remuxed with its index first through that temporary file. Matroska is renamed
    /// (copied across file systems; remuxed when `chapters` must be added). The working file is
    /// removed on success and kept (recoverable, and playable) on failure.
    static func deliver(_ working: String, to destination: String, mp4: Bool, chapters: [MediaChapter] = [],
                        faststart: Bool = false, scanner: MP4FragmentScanner? = nil) throws(BroadcastError) {
        let temporary = temporaryPath(for: destination)
        if mp4, !faststart {
            do {
                try MP4IndexAppender.finalize(working, chapters: chapters, scanner: scanner)
            } catch {
                throw BroadcastError(.outputFailed, "finalizing \(destination) failed: \(error.message); the recording stays in \(working)")
            }
            if rename(working, destination) == 0 {
                AtomicFile.syncDirectory(containing: destination)
                return
            }
            guard errno == EXDEV else {
                let failure = SystemError.current
                throw BroadcastError(.outputFailed, "moving the recording to \(destination) failed: \(failure); it stays in \(working)")
            }
            // Another file system: the bytes must be copied (the finalized file, as it is).
            do {
                try Remuxer.remux(from: working, to: temporary, container: "mp4", options: [:])
            } catch {
                unlink(temporary)
                throw BroadcastError(.outputFailed, "moving the recording to \(destination) failed: \(error.message); it stays in \(working)")
            }
        } else if mp4 {
            do {
                try Remuxer.remux(from: working, to: temporary, container: "mp4", options: ["movflags": "+faststart"], chapters: chapters)
            } catch {
                unlink(temporary)
                throw BroadcastError(.outputFailed, "finalizing \(destination) failed: \(error.message); the recording stays in \(working)")
            }
        } else if !chapters.isEmpty || rename(working, temporary) != 0 {
            // Matroska is renamed as it is, unless it needs chapters it lacks (a recovered file).
            do {
                try Remuxer.remux(from: working, to: temporary, container: "matroska", options: [:], chapters: chapters)
            } catch {
                unlink(temporary)
                throw BroadcastError(.outputFailed, "moving the recording to \(destination) failed: \(error.message); it stays in \(working)")
            }
        }
        do throws(FileSystemError) {
            try AtomicFile.publish(temporary: temporary, as: destination, replacing: true)
        } catch {
            unlink(temporary)
            throw BroadcastError(.outputFailed, "moving the recording to \(destination) failed: \(error); it stays in \(working)")
        }
        unlink(working)
    }
}
