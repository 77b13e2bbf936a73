import Foundation
import Glibc
import RecordKit

/// What the file handler writes into its working directory at start so that a later recovery
/// knows where the working file is and where it was going: `file-recovery.json`.
struct RecoveryNote: Codable {
    /// Where the file was to be delivered.
    var destination: String
    /// The file being written.
    var workingFile: String
    /// Its container.
    var container: FileOutputOptions.Container

    static let fileName = "file-recovery.json"

    /// Writes the note into `directory` (durably: a recovery must find it).
    func write(into directory: String) throws(BroadcastError) {
        let path = directory + "/" + Self.fileName
        guard let data = try? JSONEncoder().encode(self), FileManager.default.createFile(atPath: path, contents: data) else {
            throw BroadcastError(.outputFailed, "cannot write \(path) in the recording's working directory")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 { _ = fsync(fd); close(fd) }
    }

    /// The note in `directory`, if there is a readable one.
    static func read(from directory: String) -> RecoveryNote? {
        guard let data = FileManager.default.contents(atPath: directory + "/" + fileName) else { return nil }
        return try? JSONDecoder().decode(RecoveryNote.self, from: data)
    }

    /// Removes the note from `directory`.
    static func remove(from directory: String) { unlink(directory + "/" + fileName) }

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
