import XCTest
@testable import RecordKitPipeline

/// The timeline's mapping from capture time to broadcast time: the one place A/V sync lives.
final class TimelineTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    func testStartsAtZeroAndRejectsCaptureBeforeStart() {
        let t = Timeline()
        t.start(at: 1_000 * ms)
        XCTAssertNil(t.broadcastTime(ofCapture: 999 * ms))
        XCTAssertEqual(t.broadcastTime(ofCapture: 1_000 * ms), 0)
        XCTAssertEqual(t.broadcastTime(ofCapture: 1_250 * ms), Int64(250 * ms))
    }

    func testPausedSpansAreCutAndContentCapturedWhilePausedIsRejected() {
        let t = Timeline()
        t.start(at: 0)
        t.pause(at: 1_000 * ms)
        XCTAssertTrue(t.isPaused)
        XCTAssertNil(t.broadcastTime(ofCapture: 1_500 * ms))
        XCTAssertEqual(t.now(1_700 * ms), Int64(1_000 * ms), "broadcast time stands still while paused")
        t.resume(at: 3_000 * ms)
        XCTAssertNil(t.broadcastTime(ofCapture: 2_999 * ms))
        XCTAssertEqual(t.broadcastTime(ofCapture: 3_000 * ms), Int64(1_000 * ms), "no jump across a pause")
        XCTAssertEqual(t.broadcastTime(ofCapture: 3_500 * ms), Int64(1_500 * ms))
        XCTAssertEqual(t.broadcastTime(ofCapture: 900 * ms), Int64(900 * ms), "times before the pause keep their mapping")
        XCTAssertEqual(t.pausedTime(now: 4_000 * ms), 2_000 * ms)
    }

    func testManyPauseCyclesAccumulate() {
        let t = Timeline()
        t.start(at: 0)
        for i in 0..<20 {
            let base = UInt64(i) * 1_500 * ms
            t.pause(at: base + 1_000 * ms)
            t.resume(at: base + 1_500 * ms)
        }
        // 30 s of wall time, 20 pauses of 0.5 s: 20 s recorded.
        XCTAssertEqual(t.now(30_000 * ms), Int64(20_000 * ms))
    }

    func testIntervalStartingInsideAPauseSkipsToTheResumePoint() {
        let t = Timeline()
        t.start(at: 0)
        t.pause(at: 1_000 * ms)
        t.resume(at: 2_000 * ms)
        let mapped = t.mapInterval(start: 1_990 * ms, duration: 20 * ms)
        XCTAssertEqual(mapped?.broadcastNs, Int64(1_000 * ms))
        XCTAssertEqual(mapped?.skipNs, 10 * ms)
        XCTAssertNil(t.mapInterval(start: 1_200 * ms, duration: 20 * ms), "entirely paused")
        let early = t.mapInterval(start: 0, duration: 20 * ms)
        XCTAssertEqual(early?.broadcastNs, 0)
    }

    func testPausedSpansAreCutInWholeFramePeriodsSoFramesStayOnTheGrid() {
        let period: UInt64 = 33_333_333
        let t = Timeline(quantumNs: period)
        t.start(at: 0)
        t.pause(at: 1_000 * ms)
        t.resume(at: 1_050 * ms)  // 50 ms: cut as 2 periods (66.7 ms)
        XCTAssertNil(t.broadcastTime(ofCapture: 1_060 * ms), "inside the rounded-up span")
        let b = t.broadcastTime(ofCapture: 1_000 * ms + 3 * period)!
        XCTAssertEqual(b, Int64(1_000 * ms + period), "a tick one period after the span maps one period after the cut")
        XCTAssertEqual(t.now(1_060 * ms), Int64(1_000 * ms), "time stands at the cut until the span ends")
    }
}
