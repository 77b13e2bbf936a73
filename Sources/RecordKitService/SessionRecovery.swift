import RecordKit
import RecordKitExtensions

/// Turns what an interrupted recording left in its session directory into results, by handing
/// each handler's working directory to its extension's recovery hook (the service itself knows
/// no handler).
enum SessionRecovery {
    /// What the recovery of one session produced, and what failed.
    struct Outcome {
        var delivered: [String] = []
        var failures: [String] = []
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
