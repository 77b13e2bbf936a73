import RecordKit
import XCTest

/// ``MediaTime/nanoseconds`` converts exactly where 64-bit nanoseconds hold the time, and
/// saturates beyond: an encoder's "no timestamp" (`Int64.min`) reached it at a stop once and
/// trapped, taking the service and its recording down.
final class MediaTimeNanosecondsTests: XCTestCase {
    func testExactWhereItFitsAndSaturatedBeyond() {
        XCTAssertEqual(MediaTime(value: 3, timescale: 30).nanoseconds, 100_000_000)
        XCTAssertEqual(MediaTime(value: -1, timescale: 48_000).nanoseconds, -20_833)
        XCTAssertEqual(MediaTime(value: 48_000 * 3600, timescale: 48_000).nanoseconds, 3_600_000_000_000)
        XCTAssertEqual(MediaTime(value: Int64.max / 1_000_000_000, timescale: 1).nanoseconds,
                       Int64.max / 1_000_000_000 * 1_000_000_000)
        XCTAssertEqual(MediaTime(value: .min, timescale: 48_000).nanoseconds, .min)
        XCTAssertEqual(MediaTime(value: .min, timescale: 30).nanoseconds, .min)
        XCTAssertEqual(MediaTime(value: .max, timescale: 30).nanoseconds, .max)
        XCTAssertEqual(MediaTime(value: .max, timescale: 1_000_000_000).nanoseconds, .max)
    }
}
