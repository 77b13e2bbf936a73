import Synchronization

/// Maps `CLOCK_MONOTONIC` capture times to broadcast time: zero at start, paused spans cut.
///
/// Audio and video are stamped on the same clock and mapped by this one object, so their
/// sync is a property of this mapping. Thread-safe: capture threads map while the control
/// path pauses and resumes.
///
/// Total: no order or timing of `start`, `pause`, `resume` and queries traps or yields a
/// negative time. Calls may carry timestamps out of order (two threads read the clock, then
/// race for the lock); the timeline keeps its paused spans disjoint, ordered and after the
/// start, so the cut never exceeds the elapsed time. A pause that arrives while the previous
/// span's rounded-up end still lies ahead reopens that span (nothing was mapped inside it), so
/// a pause/resume storm costs whole quanta, never an underflow.
package final class Timeline: Sendable {
    private struct State {
        var startNs: UInt64?
        /// Closed paused spans: disjoint, ordered, each `start < end`, all at or after `startNs`.
        var spans: [(start: UInt64, end: UInt64)] = []
        /// Start of the current pause, if paused; never before the last span's end.
        var pausedSince: UInt64?
        /// Sum of `spans`' lengths.
        var pausedTotalNs: UInt64 = 0
    }
    private let state = Mutex(State())
    private let quantumNs: UInt64

    /// Creates a timeline that has not started. With a `quantumNs` (the frame period), every
    /// paused span is cut in whole quanta: the resume point moves forward to the next quantum
    /// boundary, so frames after a resume stay on the same grid of broadcast time as before
    /// and audio, cut by the very same span, stays in sync.
    package init(quantumNs: UInt64 = 0) { self.quantumNs = quantumNs }

    /// Starts broadcast time at `monotonicNs`. A pause requested before the start begins at the
    /// start; a second `start` is ignored.
    package func start(at monotonicNs: UInt64) {
        state.withLock { s in
            guard s.startNs == nil else { return }
            s.startNs = monotonicNs
            if let since = s.pausedSince, since < monotonicNs { s.pausedSince = monotonicNs }
            // Spans closed before the start: keep only their part after it.
            s.spans = s.spans.compactMap { $0.end > monotonicNs ? (max($0.start, monotonicNs), $0.end) : nil }
            s.pausedTotalNs = s.spans.reduce(0) { Self.add($0, $1.end - $1.start) }
        }
    }

    /// Pauses at `monotonicNs`; no-op when already paused. A pause at or before the end of the
    /// last paused span (its rounded-up end may lie in the future) continues that span.
    package func pause(at monotonicNs: UInt64) {
        state.withLock { s in
            guard s.pausedSince == nil else { return }
            if let last = s.spans.last, monotonicNs <= last.end {
                s.spans.removeLast()
                s.pausedTotalNs -= last.end - last.start
                s.pausedSince = last.start
                return
            }
            s.pausedSince = max(monotonicNs, s.startNs ?? monotonicNs)
        }
    }

    /// Resumes at `monotonicNs`; the paused span is cut from broadcast time, rounded up to whole
    /// quanta. No-op when not paused.
    package func resume(at monotonicNs: UInt64) {
        state.withLock { s in
            guard let since = s.pausedSince else { return }
            s.pausedSince = nil
            let span = Self.roundUp(monotonicNs > since ? monotonicNs - since : 0, to: quantumNs)
            guard span > 0 else { return }
            let end = Self.add(since, span)
            s.spans.append((since, end))
            s.pausedTotalNs = Self.add(s.pausedTotalNs, end - since)
        }
    }

    /// Whether the timeline is paused now.
    package var isPaused: Bool { state.withLock { $0.pausedSince != nil } }

    /// Total paused time so far in nanoseconds, including a pause in progress, measured up to
    /// `nowNs`.
    package func pausedTime(now nowNs: UInt64) -> UInt64 {
        state.withLock { s in Self.add(s.pausedTotalNs, Self.running(s, nowNs)) }
    }

    /// Broadcast time of the capture instant `monotonicNs`, or nil when it lies before the start
    /// or inside a paused span (content captured while paused never reaches a handler).
    package func broadcastTime(ofCapture monotonicNs: UInt64) -> Int64? {
        state.withLock { s in Self.map(monotonicNs, in: s) }
    }

    /// Maps a captured interval `[monotonicNs, monotonicNs + durationNs)`: returns the broadcast
    /// time of its first instant that is not paused and how many nanoseconds at its beginning
    /// were paused (to be skipped), or nil when the whole interval is paused.
    package func mapInterval(start monotonicNs: UInt64, duration durationNs: UInt64) -> (broadcastNs: Int64, skipNs: UInt64)? {
        state.withLock { s in
            if let b = Self.map(monotonicNs, in: s) { return (b, 0) }
            guard let startNs = s.startNs else { return nil }
            let end = Self.add(monotonicNs, durationNs)
            // The instant is before the start or inside a span: find where recording resumes.
            var resumeAt: UInt64?
            if monotonicNs < startNs { resumeAt = startNs }
            for span in s.spans where span.start <= monotonicNs && monotonicNs < span.end { resumeAt = span.end }
            guard let r = resumeAt, r < end, r >= monotonicNs, let b = Self.map(r, in: s) else { return nil }
            return (b, r - monotonicNs)
        }
    }

    /// Broadcast time now in nanoseconds (frozen while paused, and inside the rounded-up end of
    /// a span); zero before the start, never negative, never decreasing as `nowNs` grows.
    package func now(_ nowNs: UInt64) -> Int64 {
        state.withLock { s in
            guard let startNs = s.startNs, nowNs >= startNs else { return 0 }
            // Inside a span (the last one's rounded-up end may lie after its resume), time
            // stands at the cut.
            var t = nowNs
            if let last = s.spans.last, t < last.end, let span = s.spans.last(where: { t >= $0.start && t < $0.end }) { t = span.start }
            let paused = Self.add(Self.cut(before: t, in: s), Self.running(s, t))
            let elapsed = t - startNs
            return Self.int64(elapsed > paused ? elapsed - paused : 0)
        }
    }

    private static func map(_ t: UInt64, in s: State) -> Int64? {
        guard let startNs = s.startNs, t >= startNs else { return nil }
        if let since = s.pausedSince, t >= since { return nil }
        if let last = s.spans.last, t < last.end, s.spans.contains(where: { t >= $0.start && t < $0.end }) { return nil }
        let elapsed = t - startNs
        let cut = cut(before: t, in: s)
        return elapsed >= cut ? int64(elapsed - cut) : nil
    }

    /// Length of the closed spans that end at or before `t`.
    private static func cut(before t: UInt64, in s: State) -> UInt64 {
        if let last = s.spans.last, last.end <= t { return s.pausedTotalNs }  // the common case
        var cut: UInt64 = 0
        for span in s.spans where span.end <= t { cut = add(cut, span.end - span.start) }
        return cut
    }

    /// The running pause's length up to `t`.
    private static func running(_ s: State, _ t: UInt64) -> UInt64 {
        guard let since = s.pausedSince, t > since else { return 0 }
        return t - since
    }

    private static func roundUp(_ value: UInt64, to quantum: UInt64) -> UInt64 {
        guard quantum > 0 else { return value }
        let (q, r) = value.quotientAndRemainder(dividingBy: quantum)
        let whole = q.multipliedReportingOverflow(by: quantum)
        return whole.overflow ? .max : (r == 0 ? whole.partialValue : add(whole.partialValue, quantum))
    }

    private static func add(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let r = a.addingReportingOverflow(b)
        return r.overflow ? .max : r.partialValue
    }

    private static func int64(_ v: UInt64) -> Int64 { v > UInt64(Int64.max) ? .max : Int64(v) }
}
