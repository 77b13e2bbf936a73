import XCTest
@testable import RecordKitPipeline

/// Graceful overload (docs/ENCODING.md, "Overload: even drops"): an encoder that cannot keep
/// up loses frames evenly, never in bursts.
final class EvenFrameDropperTests: XCTestCase {
    /// Feeds `ticks` capture ticks to an encoder model that encodes `rate` frames per tick
    /// period on average, its progress delivered in bursts every `burstEvery` ticks (a
    /// frame-threaded encoder on a loaded machine; 1 = steady); returns the keep/drop decision
    /// of every tick.
    private func simulate(rate: Double, burstEvery: Int = 1, ticks: Int = 600, soft: Int = 10, hard: Int = 24)
        -> (kept: [Bool], dropper: EvenFrameDropper) {
        let dropper = EvenFrameDropper(softLimit: soft, hardLimit: hard)
        var pending = 0
        var capacity = 0.0  // frames the encoder could have finished, not yet used
        var kept: [Bool] = []
        for tick in 0..<ticks {
            capacity += rate
            if (tick + 1) % burstEvery == 0 {
                let done = min(pending, Int(capacity))
                pending -= done
                capacity = pending == 0 ? min(capacity - Double(done), 1) : capacity - Double(done)
            }
            let keep = dropper.admit(pending: pending)
            kept.append(keep)
            if keep { pending += 1 }
        }
        return (kept, dropper)
    }

    /// The longest run of consecutive drops after the first `from` ticks.
    private func longestDropRun(_ kept: [Bool], from: Int) -> Int {
        var longest = 0, run = 0
        for keep in kept[from...] {
            run = keep ? 0 : run + 1
            longest = max(longest, run)
        }
        return longest
    }

    func testAnEncoderThatKeepsUpLosesNothing() {
        let (kept, dropper) = simulate(rate: 1.1)
        XCTAssertEqual(kept.filter { !$0 }.count, 0)
        XCTAssertEqual(dropper.longestDropRun, 0)
    }

    func testAnEncoderAtTwoThirdsSpeedLosesFramesOneAtATime() {
        let (kept, dropper) = simulate(rate: 2.0 / 3.0)
        let dropped = kept.filter { !$0 }.count
        XCTAssertGreaterThan(dropped, 150, "about a third must go")
        XCTAssertLessThan(dropped, 250, "no more than that, beyond the queue's start-up")
        XCTAssertEqual(dropper.longestDropRun, 1, "never two consecutive frames: the longest hole is two frame periods")
        // Spread: every 30-tick second after the queue filled keeps at least half of its frames.
        for second in 2..<20 {
            let slice = kept[(second * 30)..<((second + 1) * 30)]
            XCTAssertGreaterThanOrEqual(slice.filter { $0 }.count, 15, "second \(second)")
        }
    }

    func testABurstyEncoderAtTwoThirdsSpeedStillLosesFramesOneAtATime() {
        // Progress in bursts of 6 ticks (200 ms at 30 fps): the old every-other-frame dropper sat
        // at its hard limit and lost whole bursts here.
        let (kept, _) = simulate(rate: 2.0 / 3.0, burstEvery: 6)
        XCTAssertLessThanOrEqual(longestDropRun(kept, from: 60), 1, "the queue's headroom absorbs the bursts")
        let keptShare = Double(kept[60...].filter { $0 }.count) / Double(kept.count - 60)
        XCTAssertEqual(keptShare, 2.0 / 3.0, accuracy: 0.05, "it keeps what the encoder can do")
    }

    func testAnEncoderAtAThirdOfTheRateKeepsEveryThirdFrame() {
        let (kept, _) = simulate(rate: 1.0 / 3.0, burstEvery: 4)
        XCTAssertLessThanOrEqual(longestDropRun(kept, from: 60), 2, "holes of three frame periods, not bursts")
        let keptShare = Double(kept[60...].filter { $0 }.count) / Double(kept.count - 60)
        XCTAssertEqual(keptShare, 1.0 / 3.0, accuracy: 0.05)
    }

    func testTheShareFallsWithTheQueueAndAStalledEncoderDropsEverything() {
        let dropper = EvenFrameDropper(softLimit: 3, hardLimit: 6)
        XCTAssertEqual(dropper.keepShare(pending: 2), 1)
        XCTAssertEqual(dropper.keepShare(pending: 3), 0.75)
        XCTAssertEqual(dropper.keepShare(pending: 4), 0.5)
        XCTAssertEqual(dropper.keepShare(pending: 6), 0)
        XCTAssertTrue(dropper.admit(pending: 2))
        XCTAssertFalse(dropper.admit(pending: 4), "at half: this one goes")
        XCTAssertTrue(dropper.admit(pending: 4), "and the next is kept")
        XCTAssertFalse(dropper.admit(pending: 6))
        XCTAssertFalse(dropper.admit(pending: 6), "at the hard limit every frame goes")
        XCTAssertEqual(dropper.longestDropRun, 2)
        XCTAssertTrue(dropper.shouldReport())
        XCTAssertFalse(dropper.shouldReport(), "the user is told once")
    }

    func testAFrameDroppedForAFullConversionCountsInTheRun() {
        let dropper = EvenFrameDropper(softLimit: 3, hardLimit: 6)
        XCTAssertFalse(dropper.admit(pending: 0, conversionFull: true), "no conversion slot: dropped whatever the queue")
        XCTAssertTrue(dropper.admit(pending: 4), "at half, the frame after a drop is kept: never two in a row")
        XCTAssertEqual(dropper.longestDropRun, 1)
    }
}
