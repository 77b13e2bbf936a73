import Foundation
import RecordKit
import RecordKitExtensions
import Synchronization

/// Turns what interrupted recordings left in their session directories into results, by
/// handing each handler's working directory to its extension's recovery hook (the service
/// itself knows no handler), and remembers what it recovered for `status`.
///
/// Threading: ``recoverInterruptedSessions()`` runs once, at the service's start; ``recovered``
/// may be read from any thread.
final class SessionRecovery: Sendable {
    /// What the recovery of one session produced, and what failed.
    struct Outcome {
        var delivered: [String] = []
        var failures: [String] = []
    }

    private let store: SessionStore
    private let catalog: ExtensionCatalog
    private let events: EventHub
    private let recoveredSessions = Mutex<[RecoveredSession]>([])

    /// Recovers the sessions of `store` through the hooks of `catalog`'s extensions, reporting to `events`.
    init(store: SessionStore, catalog: ExtensionCatalog, events: EventHub) {
        self.store = store
        self.catalog = catalog
        self.events = events
    }

    /// Every recording recovered since the service started.
    var recovered: [RecoveredSession] { recoveredSessions.withLock { $0 } }

    /// Hands every session directory an earlier service left to the extensions that wrote it;
    /// reports each result in ``recovered`` and as an event. A session whose recovery failed is
    /// kept, and the failure is an event saying where it is.
    func recoverInterruptedSessions() {
        for journal in store.journals() {
            let outcome = Self.recover(journal, catalog: catalog)
            for path in outcome.delivered {
                let recovered = RecoveredSession(id: journal.id, path: path, seconds: nil, recoveredAt: RecordingService.now())
                recoveredSessions.withLock { $0.append(recovered) }
                events.publish(ServiceEvent(kind: "recovered", recordingId: journal.id, state: "recovered",
                                            reason: "recording interrupted in state \(journal.state) was recovered into \(path)",
                                            at: RecordingService.now()))
            }
            if outcome.delivered.isEmpty, outcome.failures.isEmpty {
                // Killed before any media reached a file (the first fragment is written after
                // the first second): never a silent loss, status and an event say so.
                let reason = "recording interrupted in state \(journal.state) (started \(journal.startedAt)) before any media reached its file"
                recoveredSessions.withLock {
                    $0.append(RecoveredSession(id: journal.id, path: "", seconds: nil, recoveredAt: RecordingService.now(), nothing: reason))
                }
                events.publish(ServiceEvent(kind: "recovered", recordingId: journal.id, state: "empty", reason: reason + ": nothing to recover",
                                            at: RecordingService.now()))
            }
            if outcome.failures.isEmpty {
                store.remove(journal.id)
            } else {
                events.publish(ServiceEvent(kind: "recovered", recordingId: journal.id, state: "failed",
                                            reason: "recovering \(journal.id) failed (\(outcome.failures.joined(separator: "; "))); its files stay in \(store.directory(of: journal.id))",
                                            at: RecordingService.now()))
            }
        }
        for dir in store.directoriesWithoutJournal() { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// Recovers every handler of `journal` that has a working directory and a recovery hook.
    static func recover(_ journal: SessionJournal, catalog: ExtensionCatalog) -> Outcome {
        var outcome = Outcome()
        for handler in journal.handlers {
            guard let directory = handler.directory else { continue }
            do throws(BroadcastError) {
                outcome.delivered += try catalog.recover(extension: handler.extension, workingDirectory: directory) ?? []
            } catch {
                outcome.failures.append("\(handler.name): \(error.message)")
            }
        }
        return outcome
    }
}
