import Foundation
import Glibc
import RecordKitMedia

/// Turns what an interrupted recording left in its session directory into a playable file.
enum SessionRecovery {
    /// Recovers the working file of `journal` to its destination (or a free name beside it);
    /// nil when there was nothing to recover.
    static func recover(_ journal: SessionJournal) -> RecoveredSession? {
        let fm = FileManager.default
        guard let size = (try? fm.attributesOfItem(atPath: journal.workingFile))?[.size] as? Int64, size > 0 else {
            removePlaceholder(journal.destination)  // nothing was recorded: leave no empty file behind
            return nil
        }
        let target = freeDestination(journal.destination)
        var done = false
        if journal.container == "mp4" {
            // The fragmented MP4 plays as it is; remuxing gives it an index up front, as a normal stop would.
            done = (try? Remuxer.remux(from: journal.workingFile, to: target, container: "mp4", options: ["movflags": "+faststart"])) != nil
            if !done { unlink(target) }
        }
        if !done {
            done = rename(journal.workingFile, target) == 0 || (try? fm.copyItem(atPath: journal.workingFile, toPath: target)) != nil
        }
        guard done else { return nil }
        return RecoveredSession(id: journal.id, path: target, seconds: nil, recoveredAt: RecordingService.now())
    }

    /// The working file of `journal` when it holds a recording (one that could not be recovered
    /// stays in its session directory).
    static func keptWorkingFile(_ journal: SessionJournal) -> String? {
        let size = (try? FileManager.default.attributesOfItem(atPath: journal.workingFile))?[.size] as? Int64
        return (size ?? 0) > 0 ? journal.workingFile : nil
    }

    /// Removes the empty file a recording reserved its destination with.
    private static func removePlaceholder(_ path: String) {
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64
        if size == 0 { unlink(path) }
    }

    /// The destination, unless something other than the empty placeholder the recording
    /// created is there now; then "name (recovered N).ext".
    private static func freeDestination(_ path: String) -> String {
        let fm = FileManager.default
        let size = (try? fm.attributesOfItem(atPath: path))?[.size] as? Int64
        if size == nil || size == 0 { unlink(path); return path }
        let url = URL(fileURLWithPath: path)
        let base = url.deletingPathExtension().path, ext = url.pathExtension
        for n in 1... {
            let candidate = "\(base) (recovered \(n)).\(ext)"
            if !fm.fileExists(atPath: candidate) { return candidate }
        }
        return path
    }
}
