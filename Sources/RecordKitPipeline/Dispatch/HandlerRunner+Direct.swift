import RecordKit

/// A ``QueueOwningHandler`` is called on the releasing thread, serially under the runner's
/// `direct` lock: one lock per sample, its output window under the same lock.
extension HandlerRunner {
    /// Hands `incoming` to a queue-owning handler on this thread, when it is the output's (its
    /// window admits it) and the handler still runs: one lock, under which the calls are serial.
    func deliverDirectly(_ incoming: SampleBuffer) {
        direct.withLock { d in
            guard !d.closed, !ended.load(ordering: .relaxed), let placement = d.window.placement(of: incoming) else { return }
            let sample = placement.apply(to: incoming)
            handler.processSampleBuffer(sample, with: sample.type)
            directDelivered.add(1, ordering: .relaxed)
            directBytes.add(Int64(sample.byteCount), ordering: .relaxed)
        }
    }

    /// Calls a queue-owning handler on this thread, serially with every other call to it;
    /// nothing once it ended or finishing began.
    func callDirectly(_ call: (any BroadcastSampleHandler) -> Void) {
        direct.withLock { d in
            guard !d.closed, !ended.load(ordering: .acquiring) else { return }
            call(handler)
        }
    }
}
