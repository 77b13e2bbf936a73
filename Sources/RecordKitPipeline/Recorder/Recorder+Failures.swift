import Dispatch
import RecordKit
import RecordKitSupport

/// What handlers and encoders report while recording: a handler that failed, a handler's
/// published state and events, an encoder that failed.
extension Recorder {
    /// A handler failed: an event; the recording finishes as failed once every handler has ended.
    func handlerEnded(_ runner: HandlerRunner, _ error: BroadcastError) {
        control.async { [self] in
            let state = self.state
            onEvent(RecorderEvent(state: state, reason: "handler '\(runner.name)' failed: \(error.message)",
                                  time: broadcastSeconds(), handler: runner.name))
            guard state == .recording || state == .paused, let runners = shared.withLock({ $0.graph?.dispatcher.runners }) else { return }
            if runners.allSatisfy(\.isEnded) {
                _ = finishOnControlQueue(discard: false, reason: "every handler failed; last: \(error.message)", failed: true)
            }
        }
    }

    /// A handler's published `state` changed (an endpoint connecting, live, reconnecting, gave
    /// up): an event, so watchers see it without polling status.
    func handlerServiceState(_ runner: HandlerRunner, _ info: [String: String]) {
        onEvent(HandlerStateEvent.make(runner: runner.name, info: info, recording: state, time: broadcastSeconds()))
    }

    /// A handler sent an event (a file part finalized): passed on with its kind and path.
    func handlerSentEvent(_ runner: HandlerRunner, _ event: BroadcastEvent) {
        onEvent(RecorderEvent(state: state, reason: runner.name + ": " + event.message, time: broadcastSeconds(),
                              handler: runner.name, kind: event.kind, path: event.path))
    }

    /// An encoder failed: every handler of its route ends with that error.
    func routeFailed(_ route: SampleRoute, _ message: String) {
        for runner in shared.withLock({ $0.graph?.dispatcher.runners }) ?? [] where runner.routes.contains(route) {
            runner.end(with: BroadcastError(.internalError, "encoder for \(route) failed: \(message)"))
        }
    }
}
