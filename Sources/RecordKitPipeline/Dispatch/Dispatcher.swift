import RecordKit
import Synchronization

/// Fans samples out to the handlers that asked for their route, in timeline order.
///
/// Producers (the capture and encoder threads) call ``push(_:on:)``; the same `SampleBuffer`
/// instance goes to every subscribed handler (zero-copy). Lifecycle calls are queued behind
/// every sample released before them.
///
/// Handlers that want the same set of routes share one ``TimelineMerger``: each handler gets its
/// own streams in timeline order, and a route that lags (an encoder's look-ahead) holds back only
/// the handlers that asked for it. Raw frames are capture-pool buffers; merged with every route
/// at once, they would wait for the H.264 encoder's first packets (x264's look-ahead wants more
/// frames than the pool holds), and capture would starve.
final class Dispatcher: Sendable {
    /// The handlers that want one set of routes, and their merger.
    private final class Group: Sendable {
        let merger: Mutex<TimelineMerger>
        let runners: [HandlerRunner]
        init(routes: Set<SampleRoute>, runners: [HandlerRunner], maxHoldNs: UInt64) {
            self.merger = Mutex(TimelineMerger(routes: Array(routes), maxHoldNs: maxHoldNs))
            self.runners = runners
        }
        func release(_ sample: SampleBuffer, _ route: SampleRoute) { for runner in runners { runner.enqueue(sample) } }
    }

    private let groups: [Group]
    private let groupsByRoute: [SampleRoute: [Group]]
    /// Every runner, in the order handlers were added.
    let runners: [HandlerRunner]

    /// Creates a dispatcher for `runners`; samples wait at most `maxHoldNs` for other routes, or
    /// longer for the handlers of a route in `longerHolds` (a stream that arrives late by design:
    /// skip splicing): the longest hold among a group's routes.
    /// `shorterHolds`: routes whose handlers' samples wait at most that long (a drained encoder's
    /// bursts: the handler's muxer orders the streams itself); the shortest one wins.
    init(runners: [HandlerRunner], maxHoldNs: UInt64 = 2_000_000_000, longerHolds: [SampleRoute: UInt64] = [:],
         shorterHolds: [SampleRoute: UInt64] = [:]) {
        self.runners = runners
        var routeSets: [Set<SampleRoute>] = []
        var members: [Set<SampleRoute>: [HandlerRunner]] = [:]
        for r in runners where !r.routes.isEmpty {
            if members[r.routes] == nil { routeSets.append(r.routes) }
            members[r.routes, default: []].append(r)
        }
        let groups = routeSets.map { routes in
            Group(routes: routes, runners: members[routes]!,
                  maxHoldNs: routes.compactMap { shorterHolds[$0] }.min()
                      ?? routes.reduce(maxHoldNs) { max($0, longerHolds[$1] ?? 0) })
        }
        var byRoute: [SampleRoute: [Group]] = [:]
        for (routes, group) in zip(routeSets, groups) { for route in routes { byRoute[route, default: []].append(group) } }
        self.groups = groups
        self.groupsByRoute = byRoute
    }

    /// Every route some handler wants.
    var routes: Set<SampleRoute> { Set(groupsByRoute.keys) }

    /// Hands one sample of `route` on; never blocks on a handler.
    func push(_ sample: SampleBuffer, on route: SampleRoute) {
        for group in groupsByRoute[route] ?? [] {
            group.merger.withLock { m in m.push(sample, on: route, release: group.release) }
        }
    }

    /// Releases every waiting sample, then queues `broadcastPaused()` to every handler.
    func paused() {
        flush()
        for r in runners { r.paused() }
    }

    /// Queues `broadcastResumed()` to every handler.
    func resumed() { for r in runners { r.resumed() } }

    /// Releases every waiting sample, then queues `broadcastAnnotated(_:)` to every handler.
    func annotated(_ annotation: BroadcastAnnotation) {
        flush()
        for r in runners { r.annotated(annotation) }
    }

    /// Releases every waiting sample in order.
    func flush() {
        for group in groups { group.merger.withLock { m in m.flush(release: group.release) } }
    }
}
