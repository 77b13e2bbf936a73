import Dispatch
import RecordKit
@testable import RecordKitMedia
import Synchronization
import XCTest

/// The replay buffer's packet ring: copies come back byte for byte, memory returns in
/// allocation order (an older buffer still held keeps the ring from reusing what follows it),
/// the ring wraps, refuses what does not fit (the caller keeps its own buffer), and gives the
/// pages of what left back to the kernel, so resident memory follows what is held.
final class PacketArenaTests: XCTestCase {
    private static func bytes(_ count: Int, _ value: UInt8) -> [UInt8] { [UInt8](repeating: value, count: count) }

    private func copy(_ arena: PacketArena, _ data: [UInt8]) -> MediaBuffer? {
        data.withUnsafeBytes { arena.copy($0) }
    }

    func testACopyHoldsTheSameBytesAndItsMemoryReturnsWhenTheBufferGoes() throws {
        let arena = try XCTUnwrap(PacketArena(capacity: 1 << 20))
        var buffers: [MediaBuffer] = []
        for i in 0..<100 {
            let data = (0..<(1000 + i)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }
            let buffer = try XCTUnwrap(copy(arena, data))
            XCTAssertEqual(Array(buffer.bytes), data, "copy \(i)")
            buffers.append(buffer)
        }
        XCTAssertEqual(arena.count, 100)
        XCTAssertGreaterThanOrEqual(arena.bytes, (1000...1099).reduce(0, +))
        XCTAssertEqual(Array(buffers[42].bytes), (0..<1042).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 42) }, "later copies did not overwrite earlier ones")
        buffers.removeAll()
        XCTAssertEqual(arena.count, 0)
        XCTAssertEqual(arena.bytes, 0)
        XCTAssertNil([UInt8]().withUnsafeBytes { arena.copy($0) }, "an empty packet is not copied")
    }

    func testTheRingWrapsAndRefusesWhatDoesNotFitUntilTheOldestBufferGoes() throws {
        let arena = try XCTUnwrap(PacketArena(capacity: 64 * 1024))
        XCTAssertEqual(arena.capacity, 64 * 1024)
        // Four blocks of 16 KiB fill it; a fifth does not fit.
        var held = try (0..<4).map { try XCTUnwrap(copy(arena, Self.bytes(16 * 1024, UInt8($0)))) }
        XCTAssertNil(copy(arena, Self.bytes(1, 9)), "a full ring refuses")
        // Releasing a newer block does not make room: memory returns in allocation order.
        held.remove(at: 2)
        XCTAssertNil(copy(arena, Self.bytes(16 * 1024, 9)), "a hole behind a live older block is not reused")
        // The oldest going frees the start: the next block wraps there.
        held.remove(at: 0)
        let wrapped = try XCTUnwrap(copy(arena, Self.bytes(16 * 1024, 7)))
        XCTAssertEqual(Array(wrapped.bytes), Self.bytes(16 * 1024, 7))
        XCTAssertEqual(Array(held[0].bytes), Self.bytes(16 * 1024, 1), "the live blocks are intact")
        XCTAssertEqual(Array(held[1].bytes), Self.bytes(16 * 1024, 3))
        // Only the hole left by block 2, behind block 1 which is still live, is free now.
        XCTAssertNil(copy(arena, Self.bytes(16 * 1024 + 1, 8)), "more than the free room is refused")
        held.removeFirst()
        let intoTheHole = try XCTUnwrap(copy(arena, Self.bytes(32 * 1024, 6)), "blocks 1 and 2 gone: 32 KiB between the wrapped block and block 3")
        XCTAssertEqual(Array(intoTheHole.bytes), Self.bytes(32 * 1024, 6))
        XCTAssertEqual(Array(held[0].bytes), Self.bytes(16 * 1024, 3))
        XCTAssertEqual(Array(wrapped.bytes), Self.bytes(16 * 1024, 7))
    }

    func testPagesOfBuffersThatLeftGoBackToTheKernel() throws {
        let arena = try XCTUnwrap(PacketArena(capacity: 64 << 20))
        XCTAssertEqual(arena.residentBytes, 0, "reserved, not resident")
        // 40 MiB pass through a ring that holds about 4 MiB at a time, in 40 KiB packets (a
        // P-frame of a 10 Mbit/s stream), as a replay buffer dropping from the front does.
        var held: [MediaBuffer] = []
        var peak = 0
        for i in 0..<1024 {
            held.append(try XCTUnwrap(copy(arena, Self.bytes(40 * 1024, UInt8(truncatingIfNeeded: i)))))
            if held.count > 100 { held.removeFirst() }
            peak = max(peak, arena.residentBytes)
        }
        let heldBytes = arena.bytes
        XCTAssertEqual(heldBytes, 100 * 40 * 1024)
        XCTAssertLessThanOrEqual(arena.residentBytes, heldBytes + PacketArena.releaseBatch + 2 * 4096,
                                 "resident: what is held plus at most one batch not yet given back")
        XCTAssertLessThanOrEqual(peak, heldBytes + PacketArena.releaseBatch + 2 * 4096 + 40 * 1024)
        held.removeAll()
        XCTAssertEqual(arena.residentBytes, 0, "an empty ring gives every page back")
    }

    func testCopiesAndReleasesFromManyThreadsKeepEveryBufferIntact() throws {
        let arena = try XCTUnwrap(PacketArena(capacity: 1 << 20))
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            var held: [(MediaBuffer, UInt8)] = []
            for i in 0..<2000 {
                let value = UInt8(truncatingIfNeeded: thread * 64 + i)
                let data = Self.bytes(500 + i % 700, value)
                if let buffer = data.withUnsafeBytes({ arena.copy($0) }) { held.append((buffer, value)) }
                if held.count > 20 { held.removeFirst(Int.random(in: 1...5)) }
                for (buffer, value) in held where buffer.bytes.contains(where: { $0 != value }) {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0, "no copy was overwritten while held")
        XCTAssertEqual(arena.count, 0)
        XCTAssertEqual(arena.bytes, 0)
    }
}
