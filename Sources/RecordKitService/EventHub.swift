import Synchronization

/// The service's `events` subscribers. Publishing never blocks: each subscriber has its own
/// bounded queue and writer thread (``EventSubscriber``); those that are gone are forgotten.
///
/// Threading: any thread.
final class EventHub: Sendable {
    private let subscribers = Mutex<[EventSubscriber]>([])

    /// Adds `subscriber`; it receives every event published from now on.
    func subscribe(_ subscriber: EventSubscriber) {
        subscribers.withLock { list in
            list.removeAll { $0.isGone }
            list.append(subscriber)
        }
    }

    /// Queues `event` to every subscriber.
    func publish(_ event: ServiceEvent) {
        let current = subscribers.withLock { list in
            list.removeAll { $0.isGone }
            return list
        }
        for s in current { s.enqueue(ControlReply(ok: true, event: event)) }
    }
}
