import Dispatch
import RecordKit
import RecordKitSupport

/// Stopping (every handler finalizes) and discarding (every handler deletes what it wrote).
extension Recorder {
    /// Stops capture, drains encoders, finalizes every handler and returns their snapshots
    /// (each handler's `serviceInfo["path"]` says where its result is). Blocks until done.
    @discardableResult
    package func stop(reason: String = "user") -> [HandlerRunReport] {
        control.sync { finishOnControlQueue(discard: false, reason: reason) }
    }

    /// Stops and tells every handler to delete what it wrote; returns their snapshots.
    @discardableResult
    package func discard(reason: String = "user") -> [HandlerRunReport] {
        control.sync { finishOnControlQueue(discard: true, reason: reason) }
    }

    /// Finishes the recording on the control queue without waiting (the window is gone, capture failed).
    func stopAsync(reason: String, failed: Bool = false) {
        control.async { [self] in _ = finishOnControlQueue(discard: false, reason: reason, failed: failed) }
    }

    /// Freezes broadcast time now, finishes the graph (discarding: handlers delete what they wrote) and moves the lifecycle on; the handlers' final reports.
    func finishOnControlQueue(discard: Bool, reason: String, failed: Bool = false) -> [HandlerRunReport] {
        guard let graph = shared.withLock({ $0.graph }) else { return [] }
        guard shared.withLock({ $0.lifecycle.move(to: .finishing) }) else { return graph.dispatcher.runners.map(\.snapshot) }
        // Freeze broadcast time at this instant: whatever is captured from now on is cut, so the
        // output ends exactly here (video and audio alike). The `finishing` event comes after the
        // freeze, so the time it carries is the output's end: before, it was read first, and
        // stopping the background watcher in between let a slow machine record another frame
        // or two past the time the event reported.
        let endNs = MonotonicClock.nanoseconds()
        timeline.pause(at: endNs)
        shared.withLock { $0.endNs = endNs }
        emit(state: .finishing, reason: reason)
        pauser?.stop()
        pauser = nil
        graph.finish(at: timeline.now(endNs), discarding: discard)
        transition(to: discard ? .discarded : (failed ? .failed : .finished), reason: reason)
        return graph.dispatcher.runners.map(\.snapshot)
    }
}
