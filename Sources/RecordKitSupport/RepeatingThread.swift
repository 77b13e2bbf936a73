import Glibc

/// Calls a body every interval on a dedicated, named thread of its own, until ``stop()``: a
/// repeating timer that, unlike a Dispatch timer, runs on the same thread every time (a Dispatch
/// timer's handler takes whichever pool worker is free, and libdispatch adds workers when none
/// is, so periodic work made a recording's thread count vary; see ``SerialThread``).
///
/// The interval is measured on the monotonic clock from the previous deadline, not from the end
/// of the previous call: a late call does not shift the ones after it, and calls missed while
/// the body ran long are skipped, not run back to back.
///
/// Threading: ``stop()`` may be called from any thread, the body itself included; the body is
/// never called concurrently with itself.
package final class RepeatingThread: @unchecked Sendable {
    private let shared: Shared
    private var thread = pthread_t()
    private var started = false
    private var joined = false  // under shared.lock

    private final class Shared: @unchecked Sendable {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        var stopped = false
        let name: String
        let firstNs: UInt64
        let intervalNs: UInt64
        let body: @Sendable () -> Void

        init(name: String, firstNs: UInt64, intervalNs: UInt64, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.firstNs = firstNs
            self.intervalNs = max(1, intervalNs)
            self.body = body
            pthread_mutex_init(lock, nil)
            var attributes = pthread_condattr_t()
            pthread_condattr_init(&attributes)
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
            pthread_cond_init(wake, &attributes)
            pthread_condattr_destroy(&attributes)
        }

        deinit {
            pthread_mutex_destroy(lock)
            pthread_cond_destroy(wake)
            lock.deallocate()
            wake.deallocate()
        }

        /// Waits for each deadline (or the stop), calls the body, until stopped.
        func run() {
            SerialThread.nameCurrentThread(name)
            var deadline = MonotonicClock.nanoseconds() + firstNs
            pthread_mutex_lock(lock)
            while !stopped {
                var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
                let waited = pthread_cond_timedwait(wake, lock, &until)
                if stopped { break }
                guard waited == ETIMEDOUT || MonotonicClock.nanoseconds() >= deadline else { continue }
                pthread_mutex_unlock(lock)
                body()
                let now = MonotonicClock.nanoseconds()
                deadline += intervalNs
                if deadline <= now { deadline = now + intervalNs - (now - deadline) % intervalNs }
                pthread_mutex_lock(lock)
            }
            pthread_mutex_unlock(lock)
        }
    }

    /// Starts the thread `name` (15 bytes kept): `body` runs `firstAfterSeconds` from now, then
    /// every `everySeconds`. When no thread can be started (`pthread_create` failed), the body
    /// never runs and ``isRunning`` is false.
    package init(name: String, firstAfterSeconds: Double, everySeconds: Double, body: @escaping @Sendable () -> Void) {
        shared = Shared(name: String(decoding: name.utf8.prefix(15), as: UTF8.self),
                        firstNs: UInt64(max(0, firstAfterSeconds) * 1e9), intervalNs: UInt64(max(0, everySeconds) * 1e9), body: body)
        let context = Unmanaged.passRetained(shared).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<Shared>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        if status == 0 {
            started = true
        } else {
            Unmanaged<Shared>.fromOpaque(context).release()
        }
    }

    deinit { stop() }

    /// Whether the thread runs (started and not stopped).
    package var isRunning: Bool {
        pthread_mutex_lock(shared.lock)
        defer { pthread_mutex_unlock(shared.lock) }
        return started && !shared.stopped
    }

    /// No more calls: waits for a call in progress to return and the thread to end (from the
    /// body itself: the thread ends when the body returns). Idempotent.
    package func stop() {
        pthread_mutex_lock(shared.lock)
        shared.stopped = true
        pthread_cond_signal(shared.wake)
        let join = started && !joined
        joined = true
        pthread_mutex_unlock(shared.lock)
        guard join else { return }
        ThreadJoin.joinOrDetach(thread)
    }
}
