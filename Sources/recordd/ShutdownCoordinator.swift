import Dispatch
import Glibc
import Synchronization

/// The one way out of `recordd`: a signal, a `shutdown` request, or the listening socket
/// failing each *request* the exit here; only the main thread ever ends the process, once.
///
/// Why: earlier, the signal handler's thread and the shutdown request's thread both called
/// `exit`, and libc's exit handlers, run twice at once, crashed the service on its way out
/// (SIGSEGV, exit status 139). Now the first request wins: it finalizes the recording in
/// progress and stops the server on the requesting thread, later requests wait for that,
/// and the main thread, woken when the server's accept loop returns, leaves with `_exit`
/// (no exit handlers racing threads still blocked in reads).
final class ShutdownCoordinator: Sendable {
    private let requested = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Runs `finalize` (stop the recording, stop the server) on the calling thread the first
    /// time; any later call returns at once. Never exits the process.
    func request(reason: String, quietIfUnderway: Bool = false, log: (String) -> Void, finalize: () -> Void) {
        guard requested.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            if !quietIfUnderway { log("\(reason): already shutting down") }
            return
        }
        log("\(reason): finishing")
        finalize()
        finished.signal()
    }

    /// Whether an exit was requested.
    var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// Called by the main thread once the accept loop returned (or binding failed): waits (bounded) for a shutdown
    /// in progress to finish, then ends the process with `status`. The only exit of `recordd`
    /// after it started serving.
    func exitProcess(status: Int32, log: (String) -> Void) -> Never {
        if requested.load(ordering: .acquiring) {
            if finished.wait(timeout: .now() + .seconds(60)) == .timedOut { log("shutdown did not finish within 60 s; exiting anyway") }
        }
        log("exiting with status \(status)")
        fflush(nil)
        _exit(status)
    }
}
