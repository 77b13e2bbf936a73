import Dispatch
import RecordKit
import RecordKitSupport
import Synchronization

/// The answer of one handler to an action (``Recorder/perform(action:arguments:timeout:)``).
package struct HandlerActionResult: Sendable {
    /// The handler's registration name.
    package var handler: String
    /// What it returned (`"path"` of a file written, …) or why it failed.
    package var result: Result<[String: String], BroadcastError>
}

extension Recorder {
    /// Performs `action` on every handler of the recording that declares it
    /// (``BroadcastActionHandler/supportedActions``), each on its own queue in order with its
    /// samples, with ``BroadcastActionArguments/requestTime`` added, and blocks until every one answered or `timeout` seconds passed (a handler that
    /// did not answer by then reports an error; its work goes on). The recorder forwards by name
    /// only: it knows no concrete handler. Throws ``RecorderError/Kind/invalidState`` when the
    /// recording is not running or paused, or no handler performs `action`.
    package func perform(action: String, arguments: [String: String], timeout: Double = 60) throws(RecorderError) -> [HandlerActionResult] {
        let state = self.state
        guard state == .recording || state == .paused else {
            throw RecorderError(.invalidState, "'\(action)' needs a recording in progress; the recording is \(state.rawValue)")
        }
        let performers = runners.filter { $0.supportedActions.contains(action) && !$0.isEnded }
        guard !performers.isEmpty else {
            throw RecorderError(.invalidState, "no handler of this recording performs '\(action)'")
        }
        var arguments = arguments
        arguments[BroadcastActionArguments.requestTime] = String(max(0, timeline.now(MonotonicClock.nanoseconds())))
        let results = Mutex([String: Result<[String: String], BroadcastError>]())
        let group = DispatchGroup()
        for runner in performers {
            group.enter()
            let name = runner.name
            runner.perform(action: action, arguments: arguments) { result in
                results.withLock { $0[name] = result }
                group.leave()
            }
        }
        _ = group.wait(timeout: .now() + timeout)
        let answered = results.withLock { $0 }
        return performers.map { runner in
            HandlerActionResult(handler: runner.name, result: answered[runner.name]
                ?? .failure(BroadcastError(.internalError, "handler '\(runner.name)' did not finish '\(action)' within \(Int(timeout)) s")))
        }
    }
}
