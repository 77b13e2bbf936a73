import Foundation
import Glibc
import RecordKitSupport

/// The persistent queue: one JSON file per upload in a directory private to the user
/// (`$XDG_STATE_HOME/recordkit/uploads/ID.json`), each replaced atomically (write a temporary
/// file, fsync, rename) after every change, so a `kill -9` leaves the previous or the next
/// version, never half of one. Chosen over SQLite (GRDB): records are independent, small and
/// written by one process; a rename is all the atomicity they need, and the files can be read
/// with `cat`. Not thread-safe: ``UploadQueue`` serializes its calls.
package struct UploadJournal: Sendable {
    package let directory: String

    /// The journal in `directory` (created 0700 if absent).
    package init(directory: String) throws(UploadError) {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw UploadError(.permanent, "cannot create the upload queue in \(directory): \(error.localizedDescription)")
        }
        chmod(directory, 0o700)
    }

    /// The default directory: `$XDG_STATE_HOME/recordkit/uploads` (`~/.local/state/…`).
    package static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return state + "/recordkit/uploads"
    }

    /// Writes `record` atomically.
    package func write(_ record: UploadRecord) throws(UploadError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(record) else { throw UploadError(.permanent, "cannot encode upload \(record.id)") }
        do throws(FileSystemError) {
            try AtomicFile.write(Array(data), to: path(of: record.id))
        } catch {
            throw UploadError(.permanent, "cannot save upload \(record.id) in the journal: \(error)")
        }
    }

    /// Every record in the journal (unreadable files are skipped and named in `problems`).
    package func load() -> (records: [UploadRecord], problems: [String]) {
        var records: [UploadRecord] = []
        var problems: [String] = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() where name.hasSuffix(".json") {
            let p = directory + "/" + name
            if let data = FileManager.default.contents(atPath: p), let r = try? JSONDecoder().decode(UploadRecord.self, from: data) {
                records.append(r)
            } else {
                problems.append(p)
            }
        }
        return (records, problems)
    }

    /// Removes the record of `id`.
    package func remove(_ id: String) { unlink(path(of: id)) }

    private func path(of id: String) -> String { directory + "/" + id + ".json" }
}
