import XCTest
@testable import PreviewExtension

/// The preview's per-viewer queue (docs/PREVIEW.md): a viewer that joins late starts at a key frame, and
/// one that does not read is skipped forward to the next key frame instead of growing its queue;
/// the recording's side (`offer`) never waits.
final class LiveViewerTests: XCTestCase {
    private func fragment(_ n: Int) -> [UInt8] { [UInt8(n % 256), UInt8(n / 256)] }

    func testALateViewerGetsTheInitSegmentThenStartsAtAKeyFrame() async {
        let feed = LiveFeed()
        feed.start(initSegment: [0xFF])
        guard let viewer = feed.addViewer() else { return XCTFail("a viewer after the init segment") }
        feed.publish(fragment(1), isKeyFrame: false)  // joined mid-GOP: skipped
        feed.publish(fragment(2), isKeyFrame: true)
        feed.publish(fragment(3), isKeyFrame: false)
        let first = await viewer.next()
        let second = await viewer.next()
        let third = await viewer.next()
        XCTAssertEqual(first, [0xFF], "the init segment first")
        XCTAssertEqual(second, fragment(2), "then the key frame")
        XCTAssertEqual(third, fragment(3))
        feed.end()
        let afterEnd = await viewer.next()
        XCTAssertNil(afterEnd, "nothing after the recording ended")
    }

    func testAViewerThatDoesNotReadIsSkippedToTheNextKeyFrameAndStaysBounded() async {
        let viewer = LiveViewer(initSegment: [0xFF])
        let start = Date()
        for n in 0..<1000 { viewer.offer(fragment(n), isKeyFrame: n % 60 == 0) }
        XCTAssertLessThan(Date().timeIntervalSince(start), 1, "offering never waits")
        XCTAssertGreaterThan(viewer.skips, 0, "the unread viewer was skipped forward")
        let initSegment = await viewer.next()
        XCTAssertEqual(initSegment, [0xFF])
        let resumed = await viewer.next()
        guard let resumed else { return XCTFail("fragments after the skip") }
        let index = Int(resumed[0]) + Int(resumed[1]) * 256
        XCTAssertEqual(index % 60, 0, "after a skip the viewer restarts at a key frame (got fragment \(index))")
        XCTAssertLessThan(viewer.queuedCount, LiveViewer.maxQueuedFragments, "the queue stays bounded")
    }

    func testAViewerThatAsksForKeyFramesOnlyGetsThemUntilItAsksForAllAgain() async {
        let feed = LiveFeed()
        feed.start(initSegment: [0xFF])
        guard let viewer = feed.addViewer() else { return XCTFail("a viewer after the init segment") }
        feed.publish(fragment(0), isKeyFrame: true)
        feed.publish(fragment(1), isKeyFrame: false)
        viewer.setKeyFramesOnly(true)
        XCTAssertEqual(feed.keyFrameOnlyViewers, 1, "the feed counts it")
        for n in 2..<8 { feed.publish(fragment(n), isKeyFrame: n % 3 == 0) }  // key frames: 3, 6
        viewer.setKeyFramesOnly(false)
        XCTAssertEqual(feed.keyFrameOnlyViewers, 0)
        feed.publish(fragment(8), isKeyFrame: false)  // mid-GOP: still waits for a key frame
        feed.publish(fragment(9), isKeyFrame: true)
        feed.publish(fragment(10), isKeyFrame: false)
        XCTAssertEqual(viewer.queuedCount, 6, "nothing else was queued")
        var got: [Int] = []
        _ = await viewer.next()  // the init segment
        for _ in 0..<6 {
            guard let bytes = await viewer.next() else { break }
            got.append(Int(bytes[0]) + Int(bytes[1]) * 256)
        }
        XCTAssertEqual(got, [0, 1, 3, 6, 9, 10], "every frame, then key frames only, then every frame from the next key frame")
        feed.end()
    }

    func testTheTokenIs256RandomBitsComparedExactly() {
        let a = PreviewToken.random(), b = PreviewToken.random()
        XCTAssertEqual(a.text.count, 64)
        XCTAssertNotEqual(a, b)
        XCTAssertTrue(a.matches(a.text))
        XCTAssertFalse(a.matches(nil))
        XCTAssertFalse(a.matches(""))
        XCTAssertFalse(a.matches(String(a.text.dropLast())))
        XCTAssertFalse(a.matches(a.text + "0"))
        XCTAssertFalse(a.matches(b.text))
    }
}
