import Foundation
import Glibc
import RecordKit
import RecordKitMedia
import RecordKitSupport

/// What the file handler writes into its working directory at start so that a later recovery
/// knows where the working file is and where it was going: `file-recovery.json` for the part
/// being written, `file-recovery-part-NNN.json` for a part of a split recording still being
/// finalized. The note is rewritten at each marker, so a recovered file keeps its chapters.
struct RecoveryNote: Codable {
    /// A marker of the part, on the part's own timeline.
    struct Marker: Codable {
        /// The chapter's title ("Chapter N" for an untitled marker).
        var title: String
        /// Where it starts, nanoseconds from the part's start.
        var startNs: Int64
    }

    /// Where the file was to be delivered.
    var destination: String
    /// The file being written.
    var workingFile: String
    /// Its container.
    var container: FileOutputOptions.Container
    /// The markers so far (absent in notes of older versions).
    var markers: [Marker]? = nil

    static let fileName = "file-recovery.json"

    /// The note of part `part` while it is finalized beside the next one.
    static func partFileName(_ part: Int) -> String { "file-recovery-part-\(part).json" }

    /// The markers as chapters: each until the next, the last to the end of the file (the
    /// remuxer clamps it to the media).
    var chapters: [MediaChapter] {
        let sorted = (markers ?? []).sorted { $0.startNs < $1.startNs }
        return sorted.enumerated().map { index, marker in
            let end = index + 1 < sorted.count ? sorted[index + 1].startNs : Int64.max / 2
            return MediaChapter(title: marker.title, start: .nanoseconds(marker.startNs), end: .nanoseconds(end))
        }
    }

    /// Writes the note into `directory` (durably and whole, `AtomicFile`: a recovery must find it), as `name`.
    func write(into directory: String, as name: String = RecoveryNote.fileName) throws(BroadcastError) {
        let path = directory + "/" + name
        guard let data = try? JSONEncoder().encode(self) else {
            throw BroadcastError(.outputFailed, "cannot encode the recovery note \(path)")
        }
        do throws(FileSystemError) {
            try AtomicFile.write(Array(data), to: path)
        } catch {
            throw BroadcastError(.outputFailed, "cannot write the recovery note in the recording's working directory: \(error)")
        }
    }

    /// The note `name` in `directory`, if there is a readable one.
    static func read(from directory: String, name: String = RecoveryNote.fileName) -> RecoveryNote? {
        guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { return nil }
        return try? JSONDecoder().decode(RecoveryNote.self, from: data)
    }

    /// Every note in `directory`: the parts still being finalized (in part order), then the
    /// part being written.
    static func readAll(from directory: String) -> [(name: String, note: RecoveryNote)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let parts = names.filter { $0.hasPrefix("file-recovery-part-") && $0.hasSuffix(".json") }
            .sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
        return (parts + [fileName]).compactMap { name in read(from: directory, name: name).map { (name, $0) } }
    }

    /// Removes the note `name` from `directory`.
    static func remove(from directory: String, name: String = RecoveryNote.fileName) { unlink(directory + "/" + name) }

    /// `path` when nothing is there, else "name (recovered N).ext" beside it.
    static func freeDestination(_ path: String) -> String {
        let fm = FileManager.default
        if !fm.fileExists(atPath: path) { return path }
        let url = URL(fileURLWithPath: path)
        let base = url.deletingPathExtension().path, ext = url.pathExtension
        for n in 1...10_000 {
            let candidate = "\(base) (recovered \(n)).\(ext)"
            if !fm.fileExists(atPath: candidate) { return candidate }
        }
        return path
    }
}
