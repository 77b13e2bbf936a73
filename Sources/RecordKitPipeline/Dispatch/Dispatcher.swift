import RecordKit
import Synchronization

/// Fans samples out to the handlers that asked for their route, in timeline order.
///
/// Producers (the capture and encoder threads) call ``push(_:on:)``; the same `SampleBuffer`
/// instance goes to every subscribed handler (zero-copy). Lifecycle calls are queued behind
/// every sample released before them.
final class Dispatcher: Sendable {
    private let subscribers: [SampleRoute: [HandlerRunner]]
    private let merger: Mutex<TimelineMerger>
    /// Every runner, in the order handlers were added.
    let runners: [HandlerRunner]

    /// Creates a dispatcher for `runners`; samples wait at most `maxHoldNs` for other routes.
    init(runners: [HandlerRunner], maxHoldNs: UInt64 = 2_000_000_000) {
        self.runners = runners
        var subs: [SampleRoute: [HandlerRunner]] = [:]
        for r in runners { for route in r.routes { subs[route, default: []].append(r) } }
        self.subscribers = subs
        self.merger = Mutex(TimelineMerger(routes: Array(subs.keys), maxHoldNs: maxHoldNs))
    }

    /// Every route some handler wants.
    var routes: Set<SampleRoute> { Set(subscribers.keys) }

    /// Hands one sample of `route` on; never blocks on a handler.
    func push(_ sample: SampleBuffer, on route: SampleRoute) {
        guard subscribers[route] != nil else { return }
        merger.withLock { m in
            m.push(sample, on: route) { s, r in for runner in subscribers[r] ?? [] { runner.enqueue(s) } }
        }
    }

    /// Releases every waiting sample, then queues `broadcastPaused()` to every handler.
    func paused() {
        flush()
        for r in runners { r.paused() }
    }

    /// Queues `broadcastResumed()` to every handler.
    func resumed() { for r in runners { r.resumed() } }

    /// Releases every waiting sample in order.
    func flush() {
        merger.withLock { m in
            m.flush { s, r in for runner in subscribers[r] ?? [] { runner.enqueue(s) } }
        }
    }
}
