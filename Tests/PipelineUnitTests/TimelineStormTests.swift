import RecordKitSupport
import XCTest
import Synchronization
@testable import RecordKitPipeline

/// The timeline's arithmetic is total: no order or timing of start, pause and resume traps
/// (a pause/resume storm once killed `recordd` with SIGILL) or maps a capture instant
/// to a time that is negative, past the elapsed time, or earlier than an earlier instant's.
final class TimelineStormTests: XCTestCase {
    /// A reproducible generator (SplitMix64): a failure names its seed.
    private struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func testFiveThousandRandomPauseResumeSequencesNeverTrapAndKeepTheMappingOrdered() {
        for seed in UInt64(1)...5_000 {
            var rng = SplitMix(state: seed)
            let quantum: UInt64 = [0, 1, 16_666_667, 33_333_333, 1_000_000_000][Int(rng.next() % 5)]
            let t = Timeline(quantumNs: quantum)
            // Mostly increasing clock readings, some out of order (two threads raced for the
            // lock), some at the extremes of the clock.
            var clock: UInt64 = rng.next() % 4 == 0 ? 0 : rng.next() % 1_000_000_000_000
            var started: UInt64?
            for _ in 0..<(20 + Int(rng.next() % 200)) {
                let step = rng.next() % 8 == 0 ? rng.next() % 2_000_000_000 : rng.next() % 5_000_000
                clock = clock &+ step
                var at = clock
                if rng.next() % 6 == 0 { at = at &- min(at, rng.next() % 40_000_000) }
                if rng.next() % 500 == 0 { at = [0, UInt64.max, UInt64.max / 2][Int(rng.next() % 3)] }
                switch rng.next() % 10 {
                case 0: t.start(at: at); if started == nil { started = at }
                case 1, 2, 3: t.pause(at: at)
                case 4, 5, 6: t.resume(at: at)
                case 7: _ = t.pausedTime(now: at)
                case 8: _ = t.mapInterval(start: at, duration: rng.next() % 100_000_000)
                default: _ = t.now(at)
                }
            }
            checkInvariants(t, started: started, upTo: clock, seed: seed)
        }
    }

    func testAPauseResumeStormFromSeveralThreadsAgainstLiveCaptureNeverTraps() {
        let t = Timeline(quantumNs: 33_333_333)
        t.start(at: MonotonicClock.nanoseconds())
        let deadline = MonotonicClock.nanoseconds() + 2_000_000_000
        let last = Mutex<Int64>(-1)
        let regressions = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            while MonotonicClock.nanoseconds() < deadline {
                switch worker {
                case 0: t.pause(at: MonotonicClock.nanoseconds())
                case 1: t.resume(at: MonotonicClock.nanoseconds())
                case 2:
                    if let b = t.broadcastTime(ofCapture: MonotonicClock.nanoseconds()) {
                        last.withLock { l in if b < l { regressions.withLock { $0 += 1 } }; l = max(l, b) }
                    }
                default: XCTAssertGreaterThanOrEqual(t.now(MonotonicClock.nanoseconds()), 0)
                }
            }
        }
        XCTAssertEqual(regressions.withLock { $0 }, 0, "a later capture mapped to an earlier broadcast time")
    }

    private func checkInvariants(_ t: Timeline, started: UInt64?, upTo clock: UInt64, seed: UInt64) {
        var previousMapped: Int64 = -1
        var previousNow: Int64 = 0
        let from = started ?? 0
        let span = clock > from ? clock - from : 0
        for i in 0...64 {
            let at = from &+ span / 64 * UInt64(i)
            let now = t.now(at)
            XCTAssertGreaterThanOrEqual(now, previousNow, "now went back (seed \(seed))")
            XCTAssertLessThanOrEqual(UInt64(now), at &- from, "now past the elapsed time (seed \(seed))")
            previousNow = now
            if let b = t.broadcastTime(ofCapture: at) {
                guard let s = started else { return XCTFail("mapped before any start (seed \(seed))") }
                XCTAssertGreaterThanOrEqual(b, 0, "negative broadcast time (seed \(seed))")
                XCTAssertLessThanOrEqual(UInt64(b), at - s, "broadcast time past the elapsed time (seed \(seed))")
                XCTAssertGreaterThanOrEqual(b, previousMapped, "mapping not ordered (seed \(seed))")
                previousMapped = b
            }
            if let m = t.mapInterval(start: at, duration: 50_000_000) {
                XCTAssertLessThan(m.skipNs, 50_000_000, "skipped past the interval (seed \(seed))")
                XCTAssertGreaterThanOrEqual(m.broadcastNs, 0, "negative interval time (seed \(seed))")
            }
        }
    }
}
