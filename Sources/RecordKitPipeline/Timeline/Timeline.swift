import Synchronization

/// Maps `CLOCK_MONOTONIC` capture times to broadcast time: zero at start, paused spans cut.
///
/// Audio and video are stamped on the same clock and mapped by this one object, so their
/// sync is a property of this mapping. Thread-safe: capture threads map while the control
/// path pauses and resumes.
public final class Timeline: Sendable {
    private struct State {
        var startNs: UInt64?
        /// Closed paused spans, in order: [start, end).
        var spans: [(start: UInt64, end: UInt64)] = []
        /// Start of the current pause, if paused.
        var pausedSince: UInt64?
        var pausedTotalNs: UInt64 = 0
    }
    private let state = Mutex(State())
    private let quantumNs: UInt64

    /// Creates a timeline that has not started. With a `quantumNs` (the frame period), every
    /// paused span is cut in whole quanta: the resume point moves forward to the next quantum
    /// boundary, so frames after a resume stay on the same grid of broadcast time as before
    /// and audio, cut by the very same span, stays in sync.
    public init(quantumNs: UInt64 = 0) { self.quantumNs = quantumNs }

    /// Starts broadcast time at `monotonicNs`.
    public func start(at monotonicNs: UInt64) {
        state.withLock { $0.startNs = monotonicNs }
    }

    /// Pauses at `monotonicNs`; no-op when already paused.
    public func pause(at monotonicNs: UInt64) {
        state.withLock { s in if s.pausedSince == nil { s.pausedSince = monotonicNs } }
    }

    /// Resumes at `monotonicNs`; the paused span is cut from broadcast time.
    public func resume(at monotonicNs: UInt64) {
        state.withLock { s in
            guard let since = s.pausedSince else { return }
            var end = max(monotonicNs, since)
            if quantumNs > 0 {
                let span = end - since
                end = since + (span + quantumNs - 1) / quantumNs * quantumNs
            }
            s.spans.append((since, end))
            s.pausedTotalNs += end - since
            s.pausedSince = nil
        }
    }

    /// Whether the timeline is paused now.
    public var isPaused: Bool { state.withLock { $0.pausedSince != nil } }

    /// Total paused time so far, including a pause in progress, measured up to `nowNs`.
    public func pausedTime(now nowNs: UInt64) -> UInt64 {
        state.withLock { s in s.pausedTotalNs + (s.pausedSince.map { nowNs > $0 ? nowNs - $0 : 0 } ?? 0) }
    }

    /// Broadcast time of the capture instant `monotonicNs`, or nil when it lies before the start
    /// or inside a paused span (content captured while paused never reaches a handler).
    public func broadcastTime(ofCapture monotonicNs: UInt64) -> Int64? {
        state.withLock { s in Self.map(monotonicNs, in: s) }
    }

    /// Maps a captured interval `[monotonicNs, monotonicNs + durationNs)`: returns the broadcast
    /// time of its first instant that is not paused and how many nanoseconds at its beginning
    /// were paused (to be skipped), or nil when the whole interval is paused.
    public func mapInterval(start monotonicNs: UInt64, duration durationNs: UInt64) -> (broadcastNs: Int64, skipNs: UInt64)? {
        state.withLock { s in
            if let b = Self.map(monotonicNs, in: s) { return (b, 0) }
            guard let startNs = s.startNs else { return nil }
            let end = monotonicNs + durationNs
            // The instant is before the start or inside a span: find where recording resumes.
            var resumeAt: UInt64?
            if monotonicNs < startNs { resumeAt = startNs }
            for span in s.spans where span.start <= monotonicNs && monotonicNs < span.end { resumeAt = span.end }
            guard let r = resumeAt, r < end, let b = Self.map(r, in: s) else { return nil }
            return (b, r - monotonicNs)
        }
    }

    /// Broadcast time now (frozen while paused).
    public func now(_ nowNs: UInt64) -> Int64 {
        state.withLock { s in
            guard let startNs = s.startNs, nowNs >= startNs else { return 0 }
            // Just after a resume, inside the rounded-up end of the span: time stands at the cut.
            if let span = s.spans.last, nowNs >= span.start, nowNs < span.end { return Self.map(span.start - 1, in: s).map { $0 + 1 } ?? 0 }
            let paused = s.pausedTotalNs + (s.pausedSince.map { nowNs > $0 ? nowNs - $0 : 0 } ?? 0)
            return Int64(nowNs - startNs) - Int64(paused)
        }
    }

    private static func map(_ t: UInt64, in s: State) -> Int64? {
        guard let startNs = s.startNs, t >= startNs else { return nil }
        if let since = s.pausedSince, t >= since { return nil }
        var cut: UInt64 = 0
        for span in s.spans {
            if t >= span.end { cut += span.end - span.start } else if t >= span.start { return nil }
        }
        return Int64(t - startNs - cut)
    }
}
