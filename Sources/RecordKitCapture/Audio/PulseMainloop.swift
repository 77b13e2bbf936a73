import CPulse
import Dispatch
import Synchronization

/// Owns one running `pa_threaded_mainloop`: its thread, its lock, and the timed waits built on it.
///
/// Every libpulse object of a connection is touched only with this lock held, or from the loop's
/// own thread (where libpulse holds the lock while it runs callbacks). ``lock()`` and ``unlock()``
/// are no-ops on the loop thread, so code reached from a callback may call them too.
///
/// Lifetime: ``stop()`` ends the thread (deferred to another thread when called from the loop
/// thread, which libpulse forbids); `deinit` frees the loop, also deferred when it runs on the
/// loop thread. After ``stop()`` the lock still works, so late callers of `stop()`-style methods
/// on streams stay safe.
final class PulseMainloop: @unchecked Sendable {
    /// The `pa_threaded_mainloop *`.
    let pointer: OpaquePointer
    /// Its `pa_mainloop_api`, valid until the loop is freed.
    let api: UnsafeMutablePointer<pa_mainloop_api>
    private let stopped = Mutex(false)

    /// Creates and starts the loop thread.
    init() throws(CaptureError) {
        guard let loop = pa_threaded_mainloop_new() else {
            throw CaptureError(.audioError, "pa_threaded_mainloop_new failed (out of memory?)")
        }
        guard let api = pa_threaded_mainloop_get_api(loop) else {
            pa_threaded_mainloop_free(loop)
            throw CaptureError(.audioError, "pa_threaded_mainloop_get_api returned no API")
        }
        pa_threaded_mainloop_set_name(loop, "rk-pulse")
        guard pa_threaded_mainloop_start(loop) >= 0 else {
            pa_threaded_mainloop_free(loop)
            throw CaptureError(.audioError, "cannot start the PulseAudio mainloop thread")
        }
        pointer = loop
        self.api = api
    }

    /// Whether the caller runs on the loop thread (inside a libpulse callback).
    var isLoopThread: Bool { pa_threaded_mainloop_in_thread(pointer) != 0 }

    /// Takes the loop lock (recursive); a no-op on the loop thread, which already holds it.
    func lock() { if !isLoopThread { pa_threaded_mainloop_lock(pointer) } }

    /// Releases the loop lock taken by ``lock()``.
    func unlock() { if !isLoopThread { pa_threaded_mainloop_unlock(pointer) } }

    /// Runs `body` with the loop lock held.
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Wakes every thread blocked in ``wait(context:timeoutUs:until:)``. Called from callbacks.
    func signal() { pa_threaded_mainloop_signal(pointer, 0) }

    /// With the lock held and off the loop thread, waits until `done()` is true or `timeoutUs`
    /// microseconds pass. Returns the final value of `done()`.
    ///
    /// `context` is only used to arm the timer (`pa_context_rttime_new`); the caller must hold
    /// a reference to it for the duration.
    func wait(context: OpaquePointer, timeoutUs: UInt64, until done: () -> Bool) -> Bool {
        if done() { return true }
        precondition(!isLoopThread, "PulseMainloop.wait must not be called on the PulseAudio loop thread")
        let timer = Timer(loop: pointer)
        let event = pa_context_rttime_new(context, pa_rtclock_now() + timeoutUs, { _, _, _, userdata in
            guard let userdata else { return }
            let timer = Unmanaged<Timer>.fromOpaque(userdata).takeUnretainedValue()
            timer.fired = true
            pa_threaded_mainloop_signal(timer.loop, 0)
        }, Unmanaged.passUnretained(timer).toOpaque())
        guard let event else { return done() }
        while !done() && !timer.fired { pa_threaded_mainloop_wait(pointer) }
        api.pointee.time_free(event)
        return withExtendedLifetime(timer) { done() }
    }

    /// Stops the loop thread; idempotent. From the loop thread it is deferred to a global queue.
    func stop() {
        let first = stopped.withLock { wasStopped in
            defer { wasStopped = true }
            return !wasStopped
        }
        guard first else { return }
        if isLoopThread {
            DispatchQueue.global().async { [self] in pa_threaded_mainloop_stop(pointer) }
        } else {
            pa_threaded_mainloop_stop(pointer)
        }
    }

    deinit {
        if isLoopThread {
            // libpulse forbids freeing the loop from its own thread: let another thread join it.
            let loop = LoopPointer(pointer: pointer)
            DispatchQueue.global().async { pa_threaded_mainloop_free(loop.pointer) }
        } else {
            pa_threaded_mainloop_free(pointer)  // stops the thread first if it still runs
        }
    }

    /// Userdata of one timed wait's timer event; only touched with the loop lock held.
    private final class Timer {
        let loop: OpaquePointer
        var fired = false
        init(loop: OpaquePointer) { self.loop = loop }
    }

    /// Carries the loop pointer to the queue that frees it.
    private struct LoopPointer: @unchecked Sendable {
        let pointer: OpaquePointer
    }
}
