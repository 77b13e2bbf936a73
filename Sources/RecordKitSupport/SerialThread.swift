import Glibc

/// A serial queue with a thread of its own: one dedicated, named POSIX thread runs the jobs
/// given to ``async(_:)`` and ``sync(_:)`` one at a time, in the order given, from creation to
/// ``close()``. The thread exists as long as the queue does, busy or idle.
///
/// Why not a serial `DispatchQueue`: libdispatch runs a serial queue's jobs on whichever worker
/// of its pool is free and bounds no thread count per queue; it adds workers while queues wait
/// for one (a loaded machine) and lets idle ones go after a few seconds, so a recording's thread
/// count followed the load (21-29 threads in an hour; docs/BENCHMARKS.md, "Memory over time").
/// Long-lived serial work (encoders, conversion, handlers) runs here instead: a fixed number of
/// threads for the whole recording, each named after what it does (`top -H`, `ps -L`, gdb).
/// Hand-written because no package on the machine's list offers a named serial thread
/// (SwiftNIO's `NIOThreadPool` names its threads `TP-#n`). Never the cooperative pool: jobs may
/// block (x264, file writes).
///
/// Threading: every method may be called from any thread. ``sync(_:)`` called on the thread
/// itself runs its body at once (a `DispatchQueue` would deadlock). After ``close()`` jobs run on
/// the caller's thread, still one at a time.
package final class SerialThread: @unchecked Sendable {
    /// The thread's name as the kernel keeps it (at most 15 bytes).
    package let name: String
    private let shared: Shared
    private var thread = pthread_t()
    private var started = false
    private var joined = false  // under shared.lock

    /// The queue and the lock and condition that guard it, shared with the running thread
    /// (which keeps it alive until it ends, so closing never frees what the thread still uses).
    private final class Shared: @unchecked Sendable {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        /// Held while a job runs, on the thread or (after close) on a caller's: one job at a time.
        let runLock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        var jobs: [(@Sendable () -> Void)?] = []
        var head = 0
        var closed = false
        let name: String

        init(name: String) {
            self.name = name
            pthread_mutex_init(lock, nil)
            pthread_cond_init(wake, nil)
            // Recursive: a job run after close may queue another, which then runs inside it.
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
            pthread_mutex_init(runLock, &attributes)
            pthread_mutexattr_destroy(&attributes)
        }

        deinit {
            pthread_mutex_destroy(lock)
            pthread_cond_destroy(wake)
            pthread_mutex_destroy(runLock)
            lock.deallocate()
            wake.deallocate()
            runLock.deallocate()
        }

        /// The thread's loop: names the thread, then runs jobs until closed and empty.
        func run() {
            SerialThread.nameCurrentThread(name)
            pthread_mutex_lock(lock)
            while true {
                while head == jobs.count, !closed { pthread_cond_wait(wake, lock) }
                guard head < jobs.count else { break }
                let job = jobs[head]
                jobs[head] = nil
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                } else if head > 256, head * 2 > jobs.count {
                    jobs.removeFirst(head)
                    head = 0
                }
                pthread_mutex_unlock(lock)
                pthread_mutex_lock(runLock)
                job?()
                pthread_mutex_unlock(runLock)
                pthread_mutex_lock(lock)
            }
            pthread_mutex_unlock(lock)
        }
    }

    /// Starts the thread `name` (the first 15 bytes are kept: a kernel thread name's limit).
    /// Fails only when the system has no thread left (`pthread_create`'s `EAGAIN`): then every
    /// job runs on its caller's thread, one at a time, and the failure is the error returned by
    /// ``startError``.
    package init(name: String) {
        let kept = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        self.name = kept
        self.shared = Shared(name: kept)
        let context = Unmanaged.passRetained(shared).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let shared = Unmanaged<Shared>.fromOpaque(context).takeRetainedValue()
            shared.run()
            return nil
        }, context)
        if status == 0 {
            started = true
        } else {
            Unmanaged<Shared>.fromOpaque(context).release()
            startError = status
            shared.closed = true
        }
    }

    deinit { close() }

    /// The `pthread_create` error number when the thread could not be started, else nil.
    package private(set) var startError: Int32?

    /// Whether the caller runs on this thread.
    package var isCurrent: Bool { started && pthread_equal(pthread_self(), thread) != 0 }

    /// Queues `job`; never blocks (the queue is unbounded: callers bound what they queue).
    package func async(_ job: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(shared.lock)
        if shared.closed {
            pthread_mutex_unlock(shared.lock)
            runLate(job)
            return
        }
        shared.jobs.append(job)
        pthread_cond_signal(shared.wake)
        pthread_mutex_unlock(shared.lock)
    }

    /// Runs `body` on the thread after everything queued before it and returns its result (or
    /// throws its error); on the thread itself, runs it at once.
    package func sync<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        if isCurrent { return try body() }
        let outcome: Result<T, E> = withoutActuallyEscaping(body) { escapable in
            let call = Call(escapable)
            let done = Done()
            async { call.run(); done.signal() }
            done.wait()
            return call.outcome!
        }
        return try outcome.get()
    }

    /// Lets the thread run what is queued and end, and waits for it (unless called on the thread
    /// itself, which then ends once this job returns). Later jobs run on their callers' threads.
    /// Idempotent.
    package func close() {
        pthread_mutex_lock(shared.lock)
        shared.closed = true
        pthread_cond_signal(shared.wake)
        let join = started && !joined
        joined = true
        pthread_mutex_unlock(shared.lock)
        guard join else { return }
        ThreadJoin.joinOrDetach(thread)
    }

    private func runLate(_ job: () -> Void) {
        pthread_mutex_lock(shared.runLock)
        job()
        pthread_mutex_unlock(shared.runLock)
    }

    /// Sets the calling thread's kernel name (`/proc/self/task/TID/comm`, what `top -H` and
    /// `ps -L` show), at most 15 bytes. Writing `/proc/thread-self/comm` is the documented way
    /// (proc(5)); `pthread_setname_np` and `prctl` do not import into Swift's Glibc module.
    package static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        Glibc.close(fd)
    }

    /// A body run on the thread and its outcome (read by the waiting caller after `Done`). The
    /// body is let go once run, before the caller is woken: it must not outlive `sync`.
    private final class Call<T, E: Error>: @unchecked Sendable {
        private var body: (() throws(E) -> T)?
        private(set) var outcome: Result<T, E>?
        init(_ body: @escaping () throws(E) -> T) { self.body = body }
        func run() {
            guard let body else { return }
            self.body = nil
            do throws(E) { outcome = .success(try body()) } catch { outcome = .failure(error) }
        }
    }

    /// A one-shot signal.
    private final class Done: @unchecked Sendable {
        private var fired = false
        private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        init() {
            pthread_mutex_init(lock, nil)
            pthread_cond_init(cond, nil)
        }
        deinit {
            pthread_mutex_destroy(lock)
            pthread_cond_destroy(cond)
            lock.deallocate()
            cond.deallocate()
        }
        func signal() {
            pthread_mutex_lock(lock)
            fired = true
            pthread_cond_signal(cond)
            pthread_mutex_unlock(lock)
        }
        func wait() {
            pthread_mutex_lock(lock)
            while !fired { pthread_cond_wait(cond, lock) }
            pthread_mutex_unlock(lock)
        }
    }
}
