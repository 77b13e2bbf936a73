import Glibc
import RecordKitSupport
import Synchronization

/// Bounds the blocking network I/O of a ``NetworkOutput``: another thread can abort it at once,
/// and the owning thread can give each blocking call (connect, publish handshake, write) a
/// deadline.
///
/// libavformat polls the interrupt about every 100 ms while it waits for a socket (connecting,
/// reading the server's answer, writing into a full send buffer) and then fails the call with
/// `AVERROR_EXIT` ("Immediate exit requested"); ``deadlinePassed`` and ``isAborted`` tell which
/// of the two it was. Host name resolution (`getaddrinfo`) cannot be interrupted.
///
/// Threading: every member may be called from any thread.
package final class IOInterrupt: Sendable {
    private let aborted = Atomic<Bool>(false)
    /// `CLOCK_MONOTONIC` nanoseconds after which I/O is interrupted; 0 for none.
    private let deadline = Atomic<UInt64>(0)

    /// Creates an interrupt that is neither aborted nor has a deadline.
    package init() {}

    /// Interrupts every blocking call now and from now on (irreversible).
    package func abort() { aborted.store(true, ordering: .releasing) }

    /// Whether ``abort()`` was called.
    package var isAborted: Bool { aborted.load(ordering: .acquiring) }

    /// Interrupts blocking calls that are still running `seconds` from now.
    package func setDeadline(secondsFromNow seconds: Double) {
        let now = MonotonicClock.nanoseconds()
        deadline.store(now + UInt64(max(0, seconds) * 1e9), ordering: .releasing)
    }

    /// Removes the deadline.
    package func clearDeadline() { deadline.store(0, ordering: .releasing) }

    /// Whether a deadline is set and has passed.
    package var deadlinePassed: Bool {
        let limit = deadline.load(ordering: .acquiring)
        return limit != 0 && MonotonicClock.nanoseconds() >= limit
    }

    /// What libavformat's interrupt callback answers: stop waiting.
    var shouldInterrupt: Bool { isAborted || deadlinePassed }

}
