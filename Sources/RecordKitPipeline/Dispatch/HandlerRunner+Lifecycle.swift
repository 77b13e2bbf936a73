import RecordKit
import RecordKitSupport

/// The calls besides samples, in order with them: paused, resumed, annotated, and the handler's actions.
extension HandlerRunner {
    /// Queues `broadcastPaused()`.
    func paused() { lifecycle { $0.broadcastPaused() } }

    /// Queues `broadcastResumed()`.
    func resumed() { lifecycle { $0.broadcastResumed() } }

    /// Queues `broadcastAnnotated(_:)`.
    func annotated(_ annotation: BroadcastAnnotation) { lifecycle { $0.broadcastAnnotated(annotation) } }

    /// Queues `perform(action:…)` in order with the samples; `completion` gets the handler's
    /// result, or an error when the handler ended or does not perform `action`.
    func perform(action: String, arguments: [String: String],
                 completion: @escaping @Sendable (Result<[String: String], BroadcastError>) -> Void) {
        let handler = UncheckedHandler(handler)
        let run: @Sendable () -> Void = { [self] in
            guard !ended.load(ordering: .acquiring), let performer = handler.value as? any BroadcastActionHandler else {
                completion(.failure(BroadcastError(.internalError, "handler '\(name)' has ended; '\(action)' was not performed")))
                return
            }
            performer.perform(action: action, arguments: arguments, completion: completion)
        }
        if queueOwner != nil {
            let called: Bool = direct.withLock { d in
                if d.closed { return false }
                run()
                return true
            }
            if !called { completion(.failure(BroadcastError(.internalError, "handler '\(name)' has ended; '\(action)' was not performed"))) }
        } else {
            queue.async(run)
        }
    }

    /// Queues `call` on the runner's queue (a queue owner: calls it now, serially), unless the handler ended.
    func lifecycle(_ call: @escaping @Sendable (any BroadcastSampleHandler) -> Void) {
        if queueOwner != nil { return callDirectly(call) }
        let handler = UncheckedHandler(handler)
        queue.async { [self] in
            if !ended.load(ordering: .acquiring) { call(handler.value) }
        }
    }
}
