import CShims
@testable import RecordKitService
import XCTest

/// The recording processes keep glibc's threshold for blocks of their own mapping at 128 KB
/// (`RecordingProcessMemory.mapLargeBlocks`): a large block is mapped (and so unmapped when
/// freed, leaving no hole in an arena) even after a larger block was freed, which by default
/// raises the threshold past it.
final class LargeBlockMappingTests: XCTestCase {
    private func mappedBytes() -> UInt64 {
        var inUse: UInt64 = 0, free: UInt64 = 0, mapped: UInt64 = 0
        cshim_malloc_usage(&inUse, &free, &mapped)
        return mapped
    }

    func testALargeBlockIsMappedAfterALargerOneWasFreed() throws {
        XCTAssertTrue(RecordingProcessMemory.mapLargeBlocks())
        // Sizes far above what this test process's arenas hold free, so that malloc has to ask
        // the kernel either way: with the threshold fixed it maps the block; raised by the 30 MB
        // block's free (glibc's default), it would grow the heap instead.
        _ = cshim_malloc_trim()
        let large = try XCTUnwrap(malloc(30 << 20))
        free(large)
        let before = mappedBytes()
        let block = try XCTUnwrap(malloc(24 << 20))
        let during = mappedBytes()
        free(block)
        XCTAssertGreaterThanOrEqual(during - before, 24 << 20, "a 24 MB block has a mapping of its own")
        XCTAssertEqual(mappedBytes(), before, "and gives it back when freed")
    }
}
