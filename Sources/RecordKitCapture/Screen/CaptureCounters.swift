import Synchronization

/// The statistics of one capture, written by the capture thread and read from anywhere.
final class CaptureCounters: Sendable {
    private let values = Mutex(ScreenCaptureStatistics())

    /// Changes the counters under the lock.
    func update(_ change: (inout ScreenCaptureStatistics) -> Void) {
        values.withLock { change(&$0) }
    }

    /// A consistent snapshot.
    var snapshot: ScreenCaptureStatistics { values.withLock { $0 } }
}
