import Foundation
import Glibc
import RecordKitSupport

/// The session directories under `$XDG_STATE_HOME/recordkit/sessions/`: one per recording, with
/// its journal and the file being written. Stop moves the result out and removes the directory;
/// discard removes it; a directory left behind is an interrupted recording to recover.
package struct SessionStore: Sendable {
    /// The parent of every session directory.
    package let root: String

    /// A store rooted at `root` (created 0700 when missing).
    package init(root: String) {
        self.root = root
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
    }

    /// A new recording id: time plus randomness ("20261122-001512-3fa9").
    package static func newID() -> String {
        let f = DateFormatter()
        f.dateFormat = "yyyyMMdd-HHmmss"
        f.locale = Locale(identifier: "en_US_POSIX")
        return f.string(from: Date()) + "-" + String(UInt16.random(in: .min ... .max), radix: 16)
    }

    /// The directory of recording `id`.
    package func directory(of id: String) -> String { root + "/" + id }

    /// Creates the directory of a new recording (0700) and returns its path.
    package func createDirectory(of id: String) throws(ControlError) -> String {
        let dir = directory(of: id)
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw ControlError(.cannotCreateOutput, "cannot create the session directory \(dir): \(error.localizedDescription)")
        }
        return dir
    }

    /// Rewrites a journal atomically (`AtomicFile`: write, fsync, rename, directory fsync).
    package func write(_ journal: SessionJournal) throws(ControlError) {
        let dir = directory(of: journal.id)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(journal) else { throw ControlError(.failed, "cannot encode the journal") }
        do throws(FileSystemError) {
            try AtomicFile.write(Array(data), to: dir + "/journal.json")
        } catch {
            throw ControlError(.failed, "cannot save the session journal: \(error)")
        }
    }

    /// Every journal found, in id order.
    package func journals() -> [SessionJournal] {
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return ids.sorted().compactMap { id in
            guard let data = FileManager.default.contents(atPath: directory(of: id) + "/journal.json") else { return nil }
            return try? JSONDecoder().decode(SessionJournal.self, from: data)
        }
    }

    /// Session directories without a readable journal (a crash before the first journal write).
    package func directoriesWithoutJournal() -> [String] {
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return ids.sorted().map(directory(of:)).filter { !FileManager.default.fileExists(atPath: $0 + "/journal.json") }
    }

    /// Removes the directory of recording `id` and everything in it; returns what was removed.
    @discardableResult
    package func remove(_ id: String) -> [String] {
        let dir = directory(of: id)
        var removed = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted().map { dir + "/" + $0 }
        if (try? FileManager.default.removeItem(atPath: dir)) != nil { removed.append(dir) } else { removed = [] }
        return removed
    }
}
