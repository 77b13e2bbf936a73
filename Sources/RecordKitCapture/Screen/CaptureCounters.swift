import Synchronization

/// The statistics of one capture, written by the capture thread and read from anywhere.
package final class CaptureCounters: Sendable {
    /// All counters at zero.
    package init() {}
    private let values = Mutex(ScreenCaptureStatistics())

    /// Changes the counters under the lock.
    package func update(_ change: (inout ScreenCaptureStatistics) -> Void) {
        values.withLock { change(&$0) }
    }

    /// A consistent snapshot.
    package var snapshot: ScreenCaptureStatistics { values.withLock { $0 } }
}
