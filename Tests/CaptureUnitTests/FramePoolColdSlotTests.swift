import RecordKit
@testable import RecordKitCapture
import RecordKitSupport
import XCTest

/// ``FramePool`` gives the pages of slots left free for 30 s back to the kernel, and only
/// those: residency is read with `mincore`, for heap memory and for a System V segment (the
/// X11 pool's kind), with the clock handed in.
final class FramePoolColdSlotTests: XCTestCase {
    private let slotBytes = 1 << 20

    func testHeapSlotsLeftFreeGiveTheirPagesBack() throws {
        try checkColdSlots(shared: false)
    }

    func testSharedMemorySlotsLeftFreeGiveTheirPagesBack() throws {
        try checkColdSlots(shared: true)
    }

    private func checkColdSlots(shared: Bool) throws {
        let pool = try XCTUnwrap(FramePool(slotCount: 4, slotByteCount: slotBytes, shared: shared))
        defer { pool.memory.markForRemoval() }
        // Touch all four (a burst), keep slot 3 held, free 0-2.
        var buffers: [MediaBuffer] = []
        for _ in 0..<4 {
            let slot = try XCTUnwrap(pool.acquire())
            memset(pool.address(ofSlot: slot), 0xAB, slotBytes)
            buffers.append(pool.buffer(slot: slot, byteCount: slotBytes))
        }
        let held = buffers.removeLast()
        let freedAt = MonotonicClock.nanoseconds()
        buffers.removeAll()
        for slot in 0..<4 { XCTAssertEqual(pool.residentBytes(ofSlot: slot), slotBytes, "slot \(slot) touched") }

        // Not yet cold: nothing goes.
        XCTAssertEqual(pool.releaseColdSlots(now: freedAt + 5_000_000_000), 0)
        for slot in 0..<4 { XCTAssertEqual(pool.residentBytes(ofSlot: slot), slotBytes) }

        // Cold: the three free slots go, the held one keeps its pages and its pixels.
        XCTAssertEqual(pool.releaseColdSlots(now: freedAt + FramePool.coldAfterNanoseconds + 1_000_000_000), 3)
        for slot in 0..<3 { XCTAssertEqual(pool.residentBytes(ofSlot: slot), 0, "slot \(slot) went back") }
        XCTAssertEqual(pool.residentBytes(ofSlot: 3), slotBytes)
        XCTAssertTrue(held.bytes.allSatisfy { $0 == 0xAB }, "a held slot is untouched")
        // Once gone, a slot is not released again until it was used.
        XCTAssertEqual(pool.releaseColdSlots(now: freedAt + 2 * FramePool.coldAfterNanoseconds), 0)

        // A slot that went back is usable: it reads zero, then holds what is written.
        let again = try XCTUnwrap(pool.acquire())
        let bytes = UnsafeRawBufferPointer(start: pool.address(ofSlot: again), count: slotBytes)
        XCTAssertTrue(bytes.allSatisfy { $0 == 0 }, "fresh pages are zeroed")
        memset(pool.address(ofSlot: again), 0x5C, slotBytes)
        XCTAssertTrue(bytes.allSatisfy { $0 == 0x5C })
        XCTAssertEqual(pool.residentBytes(ofSlot: again), slotBytes)
        withExtendedLifetime(held) {}
    }
}
