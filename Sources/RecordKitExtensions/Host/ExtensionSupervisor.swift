import RecordKit
import RecordKitExtensionSDK
import Synchronization

/// The one place that decides an extension's fate: the first failure found — by the call
/// thread (timeout, malformed message), the reaper (crash, exit) or the memory watchdog — wins;
/// the process is killed and, once the broadcast runs, the handler's broadcast is ended with a
/// message that says which and why. Later findings about the same death are ignored.
final class ExtensionSupervisor: @unchecked Sendable {
    private struct State {
        var failure: ExtensionFailure?
        var context: BroadcastContext?
        var call: String?
        var orderlyExit = false
        var process: ExtensionProcess?
    }
    private let state = Mutex(State())
    /// The frames lent to the extension; let go of as soon as it fails.
    let lentFrames = LentFrames()

    /// The process, once spawned.
    func attach(_ process: ExtensionProcess) { state.withLock { $0.process = process } }

    /// From now on failures end the broadcast through `context` (after `broadcastStarted` succeeded).
    func attach(_ context: BroadcastContext) { state.withLock { $0.context = context } }

    /// The handler call in progress (nil between calls), for the crash message.
    func setCall(_ call: String?) { state.withLock { $0.call = call } }

    /// The extension answered `broadcastFinished`: its exit from now on is expected, and nothing
    /// it does any more is a failure.
    func beginOrderlyExit() { state.withLock { $0.orderlyExit = true } }

    /// The failure that ended the extension, if any.
    var failure: ExtensionFailure? { state.withLock { $0.failure } }

    /// Whether the extension was ended by a failure.
    var hasFailed: Bool { failure != nil }

    /// The message a failure is reported with.
    func message(for failure: ExtensionFailure) -> String {
        let pid = state.withLock { $0.process?.pid }
        return "extension process\(pid.map { " \($0)" } ?? "") \(failure)"
    }

    /// Records `failure` unless another came first; kills the process and ends the broadcast.
    func fail(_ failure: ExtensionFailure) {
        let (first, context, process): (Bool, BroadcastContext?, ExtensionProcess?) = state.withLock { s in
            guard s.failure == nil, !s.orderlyExit else { return (false, nil, nil) }
            s.failure = failure
            return (true, s.context, s.process)
        }
        guard first else { return }
        process?.kill()
        lentFrames.removeAll()
        context?.finishBroadcast(with: BroadcastError(.internalError, message(for: failure)))
    }

    /// The reaper's report. A death between calls that nobody caused is a failure (a crash, or
    /// an exit before `broadcastFinished`). During a call the calling thread reports it instead,
    /// once it has read what the extension sent before it went: an extension may answer
    /// `broadcastFinished` and exit at once, and that answer must count.
    func processExited(_ status: ExitStatus) {
        let between: Bool = state.withLock { s in !s.orderlyExit && s.failure == nil && s.call == nil }
        if between { fail(.died(status, call: nil)) }
    }

    /// The failure a wire error means. At the end of the stream everything the extension sent
    /// before it went has been read, so its exit is the news: this waits up to a second for the
    /// exit status, so a crash is reported as the crash it is.
    func failure(for error: WireError) -> ExtensionFailure {
        switch error {
        case .closed:
            let (process, call) = state.withLock { ($0.process, $0.call) }
            if let status = process?.waitForExit(timeoutMs: 1_000) { return .died(status, call: call) }
            return .closedConnection
        case .malformed(let what): return .malformed(what)
        case .system(let what): return .protocolViolation(what)
        }
    }
}
