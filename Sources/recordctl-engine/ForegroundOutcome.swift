import RecordCtlSupport
import RecordKitService
import Synchronization

/// What `recordctl record` learned from the recorder's events while it ran, for its exit code:
/// a live warning (the audio server lost: the recording went on with silence) makes a
/// recording that otherwise succeeded exit with ``ExitCodes/unavailable`` (69), so a script
/// never takes a degraded file for a complete one. Events arrive on the recorder's threads.
final class ForegroundOutcome: Sendable {
    /// Every live warning, in order, and whether it makes the recording degraded.
    private let warnings = Mutex<[(reason: String, degrades: Bool)]>([])

    /// Records `event`.
    func note(_ event: RecordingEvent) {
        guard event.isWarning else { return }
        // Dropped frames under load are reported (printed when they start) but do not make the
        // recording degraded: every remaining frame is on time and in sync.
        let degrades = event.kind != RecordingEvent.overloadKind
        warnings.withLock { $0.append((event.reason, degrades)) }
    }

    /// Whether `warning` came as a live event (and was printed then).
    func wasPrinted(_ warning: String) -> Bool { warnings.withLock { $0.contains { $0.reason == warning } } }

    /// 0, or 69 when a server was lost while recording.
    var exitCode: Int32 {
        let list = warnings.withLock { $0.filter(\.degrades).map(\.reason) }
        guard !list.isEmpty else { return 0 }
        Console.error("the recording was kept but is degraded (exit status \(ExitCodes.unavailable)): " + list.joined(separator: "; "))
        return ExitCodes.unavailable
    }
}
