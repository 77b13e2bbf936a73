import CShims
@testable import RecordKitService
import XCTest

/// The recording processes keep glibc's threshold for blocks of their own mapping at 128 KB
/// (`RecordingProcessMemory.mapLargeBlocks`): a block of a few hundred KB is mapped (and so
/// unmapped when freed, leaving no hole in an arena) even after a much larger block was freed,
/// which by default raises the threshold past it.
final class LargeBlockMappingTests: XCTestCase {
    private func mappedBytes() -> UInt64 {
        var inUse: UInt64 = 0, free: UInt64 = 0, mapped: UInt64 = 0
        cshim_malloc_usage(&inUse, &free, &mapped)
        return mapped
    }

    func testABlockAbove128KBIsMappedAfterALargerOneWasFreed() throws {
        XCTAssertTrue(RecordingProcessMemory.mapLargeBlocks())
        // A freed 4 MB block would raise glibc's dynamic threshold to 4 MB.
        let large = try XCTUnwrap(malloc(4 << 20))
        memset(large, 1, 4 << 20)
        free(large)
        let before = mappedBytes()
        let block = try XCTUnwrap(malloc(512 << 10))
        memset(block, 1, 512 << 10)
        let during = mappedBytes()
        free(block)
        XCTAssertGreaterThanOrEqual(during - before, 512 << 10, "a 512 KB block has a mapping of its own")
        XCTAssertEqual(mappedBytes(), before, "and gives it back when freed")
    }
}
