import Glibc
import RecordKitSupport
import Synchronization

/// The monitor thread's work: look, compare with the last state, report transitions, wait.
///
/// Looks immediately, then every poll interval, and also as soon as an X event arrives about
/// the watched window, the root's `_NET_ACTIVE_WINDOW` or the screen saver, so most changes are
/// seen within a few milliseconds and the interval is only the upper bound. `run` executes on
/// one dedicated thread; `current` and `requestStop()` are safe from any thread.
final class BackgroundLoop: @unchecked Sendable {
    private let probe: BackgroundProbe
    private let policy: PauseOnBackgroundPolicy
    private let intervalNanoseconds: UInt64
    private let wakePipe: BackgroundWakePipe?
    private let stopFlag = Atomic<Bool>(false)
    private let reason = Mutex<BackgroundReason?>(nil)

    /// A loop over `probe`, looking at least every `intervalMilliseconds` (1 at the least).
    init(probe: BackgroundProbe, policy: PauseOnBackgroundPolicy, intervalMilliseconds: Int) {
        self.probe = probe
        self.policy = policy
        intervalNanoseconds = UInt64(max(1, intervalMilliseconds)) * 1_000_000
        wakePipe = BackgroundWakePipe()
    }

    /// The reason in force as last reported (nil: foreground).
    var current: BackgroundReason? { reason.withLock { $0 } }

    /// Makes `run` return soon (at once if it is waiting). Idempotent, from any thread.
    func requestStop() {
        stopFlag.store(true, ordering: .releasing)
        wakePipe?.signal()
    }

    private var isStopRequested: Bool { stopFlag.load(ordering: .acquiring) }

    /// Closes the X connection of a loop that never ran.
    func closeWithoutRunning() { probe.close() }

    /// Looks and reports until stopped, until the window is destroyed (reported once), or until
    /// the X connection breaks (nothing more can be known; nothing is reported). Closes the X
    /// connection before returning.
    func run(onChange: @Sendable (BackgroundChange) -> Void) {
        defer { probe.close() }
        var deadline = MonotonicClock.nanoseconds()
        var eventsArrived = false
        while !isStopRequested {
            let now = MonotonicClock.nanoseconds()
            if now >= deadline || eventsArrived {
                switch probe.observe() {
                case .connectionLost:
                    return
                case .windowGone:
                    if !isStopRequested { onChange(.windowDestroyed) }
                    return
                case .observed(let observation):
                    report(observation.reason(policy: policy), onChange)
                }
                if now >= deadline { deadline = now + intervalNanoseconds }
            }
            eventsArrived = wait(until: deadline)
            if probe.isConnectionLost { return }
        }
    }

    /// Records `new` and calls `onChange` if it differs from the last reason.
    private func report(_ new: BackgroundReason?, _ onChange: @Sendable (BackgroundChange) -> Void) {
        let change = reason.withLock { last -> BackgroundChange? in
            guard let change = BackgroundChange(from: last, to: new) else { return nil }
            last = new
            return change
        }
        if let change, !isStopRequested { onChange(change) }
    }

    /// Waits until `deadline` (CLOCK_MONOTONIC), an X event, or a stop request. Returns whether
    /// X events arrived (they are read and dropped: their arrival is what matters).
    private func wait(until deadline: UInt64) -> Bool {
        if probe.drainEvents() > 0 { return true }
        let now = MonotonicClock.nanoseconds()
        guard deadline > now, !isStopRequested else { return false }
        let timeout = Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
        var descriptors = [pollfd(fd: probe.fileDescriptor, events: Int16(POLLIN), revents: 0)]
        if let wakePipe { descriptors.append(pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
        guard ready > 0 else { return false }
        if descriptors.count > 1, descriptors[1].revents != 0 { wakePipe?.drain() }
        return descriptors[0].revents != 0 && probe.drainEvents() > 0
    }
}
