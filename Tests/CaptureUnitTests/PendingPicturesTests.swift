import RecordKit
@testable import RecordKitCapture
import XCTest

/// ``PendingPictures``: the pictures a PipeWire stream brought between two capture ticks come
/// out oldest first, all of them; past its capacity the oldest is dropped and its damage goes to
/// the next picture (clipped and even-aligned), unknown damage stays unknown, and a dropped
/// pooled picture gives its slot back.
final class PendingPicturesTests: XCTestCase {
    private typealias Queue = PendingPictures<String>

    private func entry(_ name: String, at ns: UInt64, _ rects: [PixelRect]?) -> Queue.Entry {
        Queue.Entry(picture: name, captureNs: ns, dirtyRects: rects)
    }

    /// What `takeAll(into:)` gives, into a fresh array.
    private func take<P>(_ queue: inout PendingPictures<P>) -> [PendingPictures<P>.Entry] {
        var taken: [PendingPictures<P>.Entry] = []
        queue.takeAll(into: &taken)
        return taken
    }

    func testPicturesComeOutOldestFirstAndOnlyOnce() {
        var queue = Queue(capacity: 4, width: 1920, height: 1080)
        XCTAssertEqual(queue.append(entry("a", at: 1, [PixelRect(x: 0, y: 0, width: 2, height: 2)])), 0)
        XCTAssertEqual(queue.append(entry("b", at: 2, nil)), 0)
        XCTAssertEqual(queue.count, 2)
        let taken = take(&queue)
        XCTAssertEqual(taken.map(\.picture), ["a", "b"])
        XCTAssertEqual(taken.map(\.captureNs), [1, 2])
        XCTAssertEqual(taken[0].dirtyRects, [PixelRect(x: 0, y: 0, width: 2, height: 2)], "damage passes unchanged")
        XCTAssertNil(taken[1].dirtyRects)
        XCTAssertTrue(take(&queue).isEmpty, "taken once")
        XCTAssertEqual(queue.append(entry("c", at: 3, nil)), 0)
        XCTAssertEqual(take(&queue).map(\.picture), ["c"])
        // The caller's array is kept from tick to tick: what it held before is gone.
        var kept = [entry("stale", at: 0, nil)]
        queue.append(entry("d", at: 4, nil))
        queue.takeAll(into: &kept)
        XCTAssertEqual(kept.map(\.picture), ["d"])
        queue.takeAll(into: &kept)
        XCTAssertTrue(kept.isEmpty, "nothing came since")
    }

    func testAPictureDroppedWhenFullGivesItsDamageToTheNextOne() {
        var queue = Queue(capacity: 2, width: 1920, height: 1080)
        let first = PixelRect(x: 10, y: 10, width: 4, height: 4)
        let second = PixelRect(x: 100, y: 200, width: 6, height: 6)
        let third = PixelRect(x: 500, y: 500, width: 8, height: 8)
        queue.append(entry("a", at: 1, [first]))
        queue.append(entry("b", at: 2, [second]))
        XCTAssertEqual(queue.append(entry("c", at: 3, [third])), 1, "the third picture drops the oldest")
        let taken = take(&queue)
        XCTAssertEqual(taken.map(\.picture), ["b", "c"])
        XCTAssertEqual(taken[0].dirtyRects, [first, second], "b now names what a and b changed")
        XCTAssertEqual(taken[1].dirtyRects, [third])
    }

    func testMergedDamageIsClippedAndEvenAligned() {
        var queue = Queue(capacity: 1, width: 640, height: 480)
        queue.append(entry("a", at: 1, [PixelRect(x: 11, y: 13, width: 5, height: 5)]))
        queue.append(entry("b", at: 2, [PixelRect(x: 630, y: 470, width: 40, height: 40)]))
        let taken = take(&queue)
        XCTAssertEqual(taken.map(\.picture), ["b"])
        XCTAssertEqual(taken[0].dirtyRects, [PixelRect(x: 10, y: 12, width: 6, height: 6),
                                             PixelRect(x: 630, y: 470, width: 10, height: 10)])
    }

    func testUnknownDamageStaysUnknownAcrossADrop() {
        var queue = Queue(capacity: 1, width: 640, height: 480)
        queue.append(entry("a", at: 1, nil))
        queue.append(entry("b", at: 2, [PixelRect(x: 0, y: 0, width: 2, height: 2)]))
        XCTAssertNil(take(&queue)[0].dirtyRects, "a's change is unknown, so b's is too")
        queue.append(entry("c", at: 3, [PixelRect(x: 0, y: 0, width: 2, height: 2)]))
        queue.append(entry("d", at: 4, nil))
        XCTAssertNil(take(&queue)[0].dirtyRects)
    }

    func testADroppedPooledPictureGivesItsSlotBack() throws {
        let pool = try XCTUnwrap(FramePool(slotCount: 2, slotByteCount: 4096, shared: false))
        var queue = PendingPictures<MediaBuffer>(capacity: 1, width: 32, height: 32)
        for ns in 1...2 {
            let slot = try XCTUnwrap(pool.acquire())
            queue.append(.init(picture: pool.buffer(slot: slot, byteCount: 4096), captureNs: UInt64(ns), dirtyRects: nil))
        }
        // Both slots were taken; the first picture was dropped, so one is free again.
        XCTAssertNotNil(pool.acquire(), "the dropped picture's slot is free")
        XCTAssertNil(pool.acquire(), "the kept picture still holds the other")
        XCTAssertEqual(take(&queue).map(\.captureNs), [2])
    }
}
