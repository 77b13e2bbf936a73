import CShims
import RecordKitSupport

/// What the capture thread runs: paced ticks of a ``CaptureSession`` until told to stop, the
/// window goes away, or capture fails; then it closes the session on that same thread.
///
/// Late changes: content that moves at the tick rate (a video, an animation) updates the screen
/// once a period, at a phase of its own. When that phase is close to the ticks', jitter puts some
/// updates just after their tick: that tick sees no damage and the next one sees two updates,
/// of which only the last is grabbed, so a damage-driven capture loses a picture where a blind
/// grab every tick would have taken a stale one and then the new one. So a tick that finds
/// nothing right after a tick that found a change looks again a third of a period later and, if
/// the content has changed by then, grabs it as this tick's frame (its timestamp stays on the
/// tick grid). A still screen never waits: the tick before found nothing too.
struct CaptureLoop: Sendable {
    /// The X side; used only by this loop once it runs.
    let session: CaptureSession
    /// Tick rate.
    let framesPerSecond: Int
    /// What an unchanged tick delivers.
    let frameRateMode: FrameRateMode
    /// Set by ``ScreenCapture/stop()``.
    let stopSignal: StopSignal
    /// Shared counters.
    let counters: CaptureCounters
    /// The callbacks set on the ``ScreenCapture`` (read when needed, so late setting works).
    let callbacks: CaptureCallbacks
    /// Receives frames, on this thread.
    let deliver: @Sendable (CapturedFrame) -> Void

    /// Runs until stopped. Blocks the calling thread.
    func run() {
        defer { session.close() }
        let clock = TickClock(start: MonotonicClock.nanoseconds(), framesPerSecond: framesPerSecond)
        var tick: Int64 = 0
        var lastDelivered: Int64 = 0
        var lastChanged: Int64 = -2
        let lateChangeWaitNs = 1_000_000_000 / UInt64(max(framesPerSecond, 1)) / 3
        let damageTracking = session.tracksDamage
        counters.update { $0.damageTracking = damageTracking }
        while !stopSignal.isSet {
            let (due, skipped) = clock.next(after: tick, now: MonotonicClock.nanoseconds())
            if skipped > 0 { counters.update { $0.lateTicks += skipped } }
            tick = due
            _ = cshim_sleep_until_ns(clock.deadline(of: tick))
            if stopSignal.isSet { break }
            var outcome = session.tick(sequence: tick, scheduledTime: clock.deadline(of: tick), counters: counters)
            if case .unchanged = outcome, damageTracking, lastChanged == tick - 1 {
                _ = cshim_sleep_until_ns(clock.deadline(of: tick) + lateChangeWaitNs)
                if stopSignal.isSet { break }
                outcome = session.tick(sequence: tick, scheduledTime: clock.deadline(of: tick), counters: counters)
                if case .frame = outcome { counters.update { $0.lateChanges += 1; $0.unchangedTicks -= 1 } }
            }
            switch outcome {
            case .frame(let frame):
                counters.update { $0.captured += 1 }
                lastDelivered = tick
                lastChanged = tick
                deliver(frame)
            case .unchanged:
                // Constant: repeat every tick. Variable: repeat every half second (seeking, late
                // joiners, and handlers that merge video with audio wait for video no longer).
                if frameRateMode == .constant || tick - lastDelivered >= Int64(max(framesPerSecond / 2, 1)),
                   let frame = session.repeatFrame(sequence: tick, scheduledTime: clock.deadline(of: tick)) {
                    counters.update { $0.captured += 1; $0.repeatedFrames += 1 }
                    lastDelivered = tick
                    deliver(frame)
                }
            case .poolExhausted:
                counters.update { $0.droppedPoolExhausted += 1 }
            case .skipped:
                break
            case .windowGone:
                callbacks.windowGone?()
                return
            case .failed(let error):
                callbacks.failure?(error)
                return
            }
            tick += 1
        }
    }
}
