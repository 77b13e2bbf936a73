@testable import RecordKitWeb
import XCTest

/// ``ByteRange`` against every edge case a client can send: no input traps, every unsatisfiable or
/// malformed `bytes=` range is 416.
final class ByteRangeTests: XCTestCase {
    func testEveryEdgeCase() {
        let size: Int64 = 1000
        let cases: [(String?, ByteRange)] = [
            (nil, .whole),
            ("bytes=0-", .partial(first: 0, last: 999)),
            ("bytes=0-0", .partial(first: 0, last: 0)),
            ("bytes=10-19", .partial(first: 10, last: 19)),
            ("bytes=990-5000", .partial(first: 990, last: 999)),
            ("bytes=-100", .partial(first: 900, last: 999)),
            ("bytes=-5000", .partial(first: 0, last: 999)),
            ("bytes=999-", .partial(first: 999, last: 999)),
            ("bytes=1000-", .unsatisfiable),
            ("bytes=999999999-", .unsatisfiable),
            ("bytes=9223372036854775800-", .unsatisfiable),
            ("bytes=9223372036854775807-9223372036854775807", .unsatisfiable),
            ("bytes=99999999999999999999999999-", .unsatisfiable),
            ("bytes=0-99999999999999999999999999", .partial(first: 0, last: 999)),
            ("bytes=-99999999999999999999999999", .partial(first: 0, last: 999)),
            ("bytes=-5-10", .unsatisfiable),
            ("bytes=-0", .unsatisfiable),
            ("bytes=20-10", .unsatisfiable),
            ("bytes=-", .unsatisfiable),
            ("bytes=", .unsatisfiable),
            ("bytes=abc", .unsatisfiable),
            ("bytes=1-2-3", .unsatisfiable),
            ("bytes=+1-2", .unsatisfiable),
            ("bytes=0x10-", .unsatisfiable),
            ("BYTES=1-2", .partial(first: 1, last: 2)),
            ("bytes=0-1,5-6", .whole),
            ("items=0-1", .whole),
            ("", .whole),
        ]
        for (header, expected) in cases {
            XCTAssertEqual(ByteRange.resolve(header, size: size), expected, "Range: \(header ?? "nil")")
        }
        XCTAssertEqual(ByteRange.resolve("bytes=0-", size: 0), .unsatisfiable)
        XCTAssertEqual(ByteRange.resolve("bytes=-1", size: 0), .unsatisfiable)
        XCTAssertEqual(ByteRange.resolve("bytes=0-", size: Int64.max), .partial(first: 0, last: Int64.max - 1))
        XCTAssertEqual(ByteRange.resolve("bytes=-9223372036854775807", size: Int64.max), .partial(first: 0, last: Int64.max - 1))
    }

    /// Random headers built from the characters a Range is made of never trap, and every answer
    /// stays inside the file.
    func testRandomHeadersStayInside() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789-,= bytes9")
        for _ in 0..<20_000 {
            let length = Int.random(in: 0..<40, using: &generator)
            let header = "bytes=" + String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            let size = Int64.random(in: 0...Int64.max, using: &generator) >> Int64.random(in: 0..<63, using: &generator)
            if case .partial(let first, let last) = ByteRange.resolve(header, size: size) {
                XCTAssert(first >= 0 && first <= last && last < size, "\(header) on \(size): \(first)-\(last)")
            }
        }
    }
}
