import Glibc
import RecordKit
import RecordKitMedia

/// Turns the fragmented MP4 written while recording into a plain MP4 with its index (`moov`)
/// first, atomically: remux into a hidden temporary file next to it, `fsync`, `rename` over.
enum MP4Finalizer {
    /// The temporary file used while finalizing `path`: `.<name>.finalizing.mp4` beside it.
    static func temporaryPath(for path: String) -> String {
        PathName.directory(of: path) + "/." + PathName.lastComponent(of: path) + ".finalizing.mp4"
    }

    /// Rewrites `path` in place. On failure `path` is untouched (still the fragmented file,
    /// which plays) and the temporary file is removed.
    static func finalize(_ path: String, chapters: [MediaChapter] = []) throws(BroadcastError) {
        let temporary = temporaryPath(for: path)
        do {
            try Remuxer.remux(from: path, to: temporary, container: "mp4", options: ["movflags": "+faststart"], chapters: chapters)
        } catch {
            unlink(temporary)
            throw BroadcastError(.outputFailed, "finalizing \(path) failed: \(error.message); the fragmented MP4 was kept and plays as it is")
        }
        if let failure = sync(temporary) {
            unlink(temporary)
            throw BroadcastError(.outputFailed, "finalizing \(path) failed: syncing \(temporary): \(failure); the fragmented MP4 was kept and plays as it is")
        }
        if rename(temporary, path) != 0 {
            let failure = SystemError.current
            unlink(temporary)
            throw BroadcastError(.outputFailed, "finalizing \(path) failed: renaming \(temporary) over it: \(failure); the fragmented MP4 was kept and plays as it is")
        }
        // Make the rename itself durable.
        _ = sync(PathName.directory(of: path))
    }

    /// Moves a finished working file to `destination`: remuxed into a plain MP4 (`remux`) or
    /// renamed (copied across file systems; remuxed as Matroska when `chapters` must be added), through a temporary file beside the destination,
    /// so the destination is complete or untouched. The working file is removed on success and
    /// kept (recoverable) on failure.
    static func deliver(_ working: String, to destination: String, remux: Bool, chapters: [MediaChapter] = []) throws(BroadcastError) {
        let temporary = temporaryPath(for: destination)
        if remux {
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
        _ = sync(temporary)
        if rename(temporary, destination) != 0 {
            let failure = SystemError.current
            unlink(temporary)
            throw BroadcastError(.outputFailed, "moving the recording to \(destination) failed: \(failure); it stays in \(working)")
        }
        unlink(working)
        _ = sync(PathName.directory(of: destination))
    }

    /// `fsync`s the file or directory at `path`; returns the error text on failure.
    private static func sync(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return SystemError.current }
        defer { close(fd) }
        return fsync(fd) == 0 ? nil : SystemError.current
    }
}
