import Synchronization

/// A one-way flag that tells the capture thread to stop at its next check.
final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Raises the flag. Idempotent.
    func set() { flag.store(true, ordering: .releasing) }

    /// Whether the flag was raised.
    var isSet: Bool { flag.load(ordering: .acquiring) }
}
