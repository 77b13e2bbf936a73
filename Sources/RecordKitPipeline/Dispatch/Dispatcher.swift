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
        let routes: Set<SampleRoute>
        let merger: Mutex<TimelineMerger>
        let members: Mutex<[HandlerRunner]>
        init(routes: Set<SampleRoute>, runners: [HandlerRunner], maxHoldNs: UInt64) {
            self.routes = routes
            self.merger = Mutex(TimelineMerger(routes: Array(routes), maxHoldNs: maxHoldNs))
            self.members = Mutex(runners)
        }
        func release(_ sample: SampleBuffer, _ route: SampleRoute) { for runner in members.withLock({ $0 }) { runner.enqueue(sample) } }
        func flush() { merger.withLock { m in m.flush(release: release) } }
    }

    /// The groups and runners, changed when an output is attached or detached.
    private struct Groups {
        var groups: [Group] = []
        var byRoute: [SampleRoute: [Group]] = [:]
        var runners: [HandlerRunner] = []
        var longerHolds: [SampleRoute: UInt64]
        var shorterHolds: [SampleRoute: UInt64]
    }
    private let state: Mutex<Groups>
    private let maxHoldNs: UInt64

    /// Creates a dispatcher for `runners`; samples wait at most `maxHoldNs` for other routes, or
    /// longer for the handlers of a route in `longerHolds` (a stream that arrives late by design:
    /// skip splicing): the longest hold among a group's routes.
    /// `shorterHolds`: routes whose handlers' samples wait at most that long (a drained encoder's
    /// bursts: the handler's muxer orders the streams itself); the shortest one wins.
    init(runners: [HandlerRunner], maxHoldNs: UInt64 = 2_000_000_000, longerHolds: [SampleRoute: UInt64] = [:],
         shorterHolds: [SampleRoute: UInt64] = [:]) {
        self.maxHoldNs = maxHoldNs
        var groups = Groups(longerHolds: longerHolds, shorterHolds: shorterHolds)
        var routeSets: [Set<SampleRoute>] = []
        var members: [Set<SampleRoute>: [HandlerRunner]] = [:]
        for r in runners where !r.routes.isEmpty {
            if members[r.routes] == nil { routeSets.append(r.routes) }
            members[r.routes, default: []].append(r)
        }
        for routes in routeSets {
            Self.insert(Group(routes: routes, runners: members[routes]!, maxHoldNs: Self.hold(for: routes, in: groups, maxHoldNs)), into: &groups)
        }
        groups.runners = runners
        self.state = Mutex(groups)
    }

    private static func hold(for routes: Set<SampleRoute>, in groups: Groups, _ maxHoldNs: UInt64) -> UInt64 {
        routes.compactMap { groups.shorterHolds[$0] }.min() ?? routes.reduce(maxHoldNs) { max($0, groups.longerHolds[$1] ?? 0) }
    }

    private static func insert(_ group: Group, into groups: inout Groups) {
        groups.groups.append(group)
        for route in group.routes { groups.byRoute[route, default: []].append(group) }
    }

    /// Every runner, in the order handlers were added (detached ones removed).
    var runners: [HandlerRunner] { state.withLock { $0.runners } }

    /// Every route some handler wants.
    var routes: Set<SampleRoute> { state.withLock { Set($0.byRoute.keys) } }

    /// Adds `runner` (an output attached to the running capture) with a merger of its own, so
    /// that it starts with nothing another handler's merger still holds. `longerHolds` and
    /// `shorterHolds` add the holds of routes that start with it (as in ``init(runners:maxHoldNs:longerHolds:shorterHolds:)``).
    func add(_ runner: HandlerRunner, longerHolds: [SampleRoute: UInt64] = [:], shorterHolds: [SampleRoute: UInt64] = [:]) {
        state.withLock { g in
            g.longerHolds.merge(longerHolds) { _, new in new }
            g.shorterHolds.merge(shorterHolds) { _, new in new }
            if !runner.routes.isEmpty {
                Self.insert(Group(routes: runner.routes, runners: [runner], maxHoldNs: Self.hold(for: runner.routes, in: g, maxHoldNs)), into: &g)
            }
            g.runners.append(runner)
        }
    }

    /// Releases what `runner`'s merger holds (samples past its cut are dropped by the runner).
    func flush(for runner: HandlerRunner) {
        let groups = state.withLock { g in g.groups.filter { $0.members.withLock { $0.contains { $0 === runner } } } }
        for group in groups { group.flush() }
    }

    /// Removes `runner` (a detached output): it gets nothing more. A group left without members
    /// goes too. Returns the routes no remaining runner wants.
    @discardableResult
    func remove(_ runner: HandlerRunner) -> Set<SampleRoute> {
        flush(for: runner)
        return state.withLock { g in
            g.runners.removeAll { $0 === runner }
            var emptied: [Group] = []
            for group in g.groups {
                let left = group.members.withLock { m in
                    m.removeAll { $0 === runner }
                    return m.count
                }
                if left == 0 { emptied.append(group) }
            }
            g.groups.removeAll { group in emptied.contains { $0 === group } }
            for (route, list) in g.byRoute {
                let kept = list.filter { group in !emptied.contains { $0 === group } }
                g.byRoute[route] = kept.isEmpty ? nil : kept
            }
            return runner.routes.subtracting(g.byRoute.keys)
        }
    }

    /// Hands one sample of `route` on; never blocks on a handler.
    func push(_ sample: SampleBuffer, on route: SampleRoute) {
        for group in state.withLock({ $0.byRoute[route] }) ?? [] {
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
        for group in state.withLock({ $0.groups }) { group.flush() }
    }
}
