import XCTest
@testable import RecordKitPipeline

/// Issue 12: an encoder that cannot keep up loses frames evenly, never in bursts.
final class EvenFrameDropperTests: XCTestCase {
    /// Feeds 300 capture ticks to an encoder model that needs `cost` tick periods per frame;
    /// returns the keep/drop decision of every tick.
    private func simulate(cost: Double, soft: Int = 3, hard: Int = 6) -> (kept: [Bool], dropper: EvenFrameDropper) {
        let dropper = EvenFrameDropper(softLimit: soft, hardLimit: hard)
        var queue: [Int] = []  // ticks waiting or encoding
        var busyUntil = 0.0
        var kept: [Bool] = []
        for tick in 0..<300 {
            let now = Double(tick)
            // The encoder finishes frames whose time has come.
            while let _ = queue.first, busyUntil <= now {
                queue.removeFirst()
                if !queue.isEmpty { busyUntil += cost }
            }
            let keep = dropper.admit(pending: queue.count)
            kept.append(keep)
            if keep {
                if queue.isEmpty { busyUntil = now + cost }
                queue.append(tick)
            }
        }
        return (kept, dropper)
    }

    func testAnEncoderThatKeepsUpLosesNothing() {
        let (kept, dropper) = simulate(cost: 0.9)
        XCTAssertEqual(kept.filter { !$0 }.count, 0)
        XCTAssertEqual(dropper.longestDropRun, 0)
    }

    func testAnEncoderAtTwoThirdsSpeedLosesFramesOneAtATime() {
        let (kept, dropper) = simulate(cost: 1.5)
        let dropped = kept.filter { !$0 }.count
        XCTAssertGreaterThan(dropped, 60, "about a third must go")
        XCTAssertLessThan(dropped, 150, "no more than every other frame")
        XCTAssertEqual(dropper.longestDropRun, 1, "never two consecutive frames: the longest hole is two frame periods")
        // Spread: every 30-tick second after the first keeps at least half of its frames.
        for second in 1..<10 {
            let slice = kept[(second * 30)..<((second + 1) * 30)]
            XCTAssertGreaterThanOrEqual(slice.filter { $0 }.count, 15, "second \(second)")
        }
    }

    func testAStalledEncoderDropsEverythingOnlyAtTheHardLimit() {
        let dropper = EvenFrameDropper(softLimit: 3, hardLimit: 6)
        XCTAssertTrue(dropper.admit(pending: 2))
        XCTAssertFalse(dropper.admit(pending: 3), "beyond the soft limit: this one goes")
        XCTAssertTrue(dropper.admit(pending: 3), "and the next is kept")
        XCTAssertFalse(dropper.admit(pending: 6))
        XCTAssertFalse(dropper.admit(pending: 6), "at the hard limit every frame goes")
        XCTAssertTrue(dropper.shouldReport())
        XCTAssertFalse(dropper.shouldReport(), "the user is told once")
    }
}
