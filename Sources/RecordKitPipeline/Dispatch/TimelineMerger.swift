import RecordKit
import RecordKitSupport

/// Merges the streams of several producers (the video encoder, each audio track) into one
/// sequence ordered by ``SampleBuffer/timelineTime``.
///
/// A sample is released once every expected route has a sample waiting, so nothing earlier can
/// still arrive, or once it has waited longer than `maxHold` (a stalled producer must not stall
/// the others). Not thread-safe: the ``Dispatcher`` serializes access.
struct TimelineMerger {
    private struct Pending {
        /// Released entries before `head` are nil: the merger must not keep a sample alive
        /// once it went out (raw frames are capture-pool buffers, and the pool is small).
        var samples: [(sample: SampleBuffer?, arrivalNs: UInt64)] = []
        var head = 0
        var isEmpty: Bool { head >= samples.count }
        var first: (sample: SampleBuffer, arrivalNs: UInt64) { (samples[head].sample!, samples[head].arrivalNs) }
        mutating func popFirst() -> SampleBuffer {
            let s = samples[head].sample!
            samples[head].sample = nil
            head += 1
            if head > 64 && head * 2 > samples.count { samples.removeFirst(head); head = 0 }
            return s
        }
    }
    private var pending: [SampleRoute: Pending]
    private let routes: [SampleRoute]
    private let maxHoldNs: UInt64

    /// Creates a merger that expects samples on `routes`.
    init(routes: [SampleRoute], maxHoldNs: UInt64) {
        self.routes = routes
        self.maxHoldNs = maxHoldNs
        self.pending = Dictionary(uniqueKeysWithValues: routes.map { ($0, Pending()) })
    }

    /// Adds a sample and releases every sample that can now go out, in timeline order.
    mutating func push(_ sample: SampleBuffer, on route: SampleRoute, release: (SampleBuffer, SampleRoute) -> Void) {
        let now = MonotonicClock.nanoseconds()
        pending[route, default: Pending()].samples.append((sample, now))
        drain(now: now, force: false, release: release)
    }

    /// Releases everything that waits, in timeline order.
    mutating func flush(release: (SampleBuffer, SampleRoute) -> Void) {
        drain(now: MonotonicClock.nanoseconds(), force: true, release: release)
    }

    private mutating func drain(now: UInt64, force: Bool, release: (SampleBuffer, SampleRoute) -> Void) {
        while true {
            var earliest: (route: SampleRoute, time: MediaTime, arrival: UInt64)?
            var allHaveSamples = true
            for route in routes {
                guard let p = pending[route], !p.isEmpty else { allHaveSamples = false; continue }
                let head = p.first
                let t = head.sample.timelineTime
                if earliest == nil || t < earliest!.time { earliest = (route, t, head.arrivalNs) }
            }
            guard let e = earliest else { return }
            let overdue = now >= e.arrival && now - e.arrival > maxHoldNs
            guard force || allHaveSamples || overdue else { return }
            let sample = pending[e.route]!.popFirst()
            release(sample, e.route)
        }
    }
}
