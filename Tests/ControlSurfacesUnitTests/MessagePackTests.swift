import XCTest
@testable import RecordKitOBSWebSocket

/// The MessagePack codec of `obswebsocket.msgpack`: round trips, the spec's byte forms, and
/// malformed input answered with an error, never a trap.
final class MessagePackTests: XCTestCase {
    /// Every kind of value, at each size boundary, comes back equal.
    func testRoundTripsEveryKindAtItsSizeBoundaries() throws {
        let ints: [Int64] = [0, 1, 127, 128, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, Int64.max,
                             -1, -32, -33, -128, -129, -32_768, -32_769, -2_147_483_648, -2_147_483_649, Int64.min]
        for i in ints { XCTAssertEqual(try MessagePack.decode(MessagePack.encode(.int(i))), .int(i), "\(i)") }
        for n in [0, 31, 32, 255, 256, 65_535, 65_536] {
            let s = String(repeating: "é", count: n / 2) + String(repeating: "a", count: n % 2)
            XCTAssertEqual(try MessagePack.decode(MessagePack.encode(.string(s))), .string(s))
        }
        for n in [0, 15, 16, 65_535, 65_536] {
            let a = OBSValue.array(Array(repeating: .int(1), count: n))
            XCTAssertEqual(try MessagePack.decode(MessagePack.encode(a)), a)
            let o = OBSValue.object(Dictionary(uniqueKeysWithValues: (0..<n).map { ("k\($0)", OBSValue.bool($0 % 2 == 0)) }))
            XCTAssertEqual(try MessagePack.decode(MessagePack.encode(o)), o)
        }
        let nested: OBSValue = ["op": 6, "d": ["requestType": "GetVersion", "requestId": "1", "requestData": ["x": 1.5, "n": .null]]]
        XCTAssertEqual(try MessagePack.decode(MessagePack.encode(nested)), nested)
    }

    /// The spec's compact forms, byte for byte (what a Python `msgpack` client produces).
    func testEncodesTheSpecsForms() {
        XCTAssertEqual(MessagePack.encode(.int(5)), [0x05])
        XCTAssertEqual(MessagePack.encode(.int(-1)), [0xFF])
        XCTAssertEqual(MessagePack.encode(.int(200)), [0xCC, 200])
        XCTAssertEqual(MessagePack.encode(.string("op")), [0xA2, 0x6F, 0x70])
        XCTAssertEqual(MessagePack.encode(["op": 1]), [0x81, 0xA2, 0x6F, 0x70, 0x01])
        XCTAssertEqual(MessagePack.encode(.double(1.5)), [0xCB, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(MessagePack.encode(.bool(true)), [0xC3])
        XCTAssertEqual(MessagePack.encode(.null), [0xC0])
        // float 32 and uint 64 decode too.
        XCTAssertEqual(try MessagePack.decode([0xCA, 0x3F, 0xC0, 0, 0]), .double(1.5))
        XCTAssertEqual(try MessagePack.decode([0xCF, 0, 0, 0, 0, 0, 0, 0, 7]), .int(7))
    }

    /// Truncations, lying lengths, bad UTF-8, non-string keys, extension types, trailing bytes and
    /// deep nesting are errors; random bytes never trap.
    func testMalformedInputIsAnErrorNeverATrap() {
        let bad: [[UInt8]] = [[], [0xA5, 0x61], [0xDD, 0xFF, 0xFF, 0xFF, 0xFF], [0xDF, 0x7F, 0xFF, 0xFF, 0xFF], [0xA2, 0xFF, 0xFE],
                              [0x81, 0x01, 0x02], [0xD4, 0x01, 0x02], [0xC1], [0x01, 0x02], [0xCB, 0x00], [0xDB, 0xFF, 0xFF, 0xFF, 0xFF],
                              Array(repeating: 0x91, count: 100) + [0x01]]
        for bytes in bad { XCTAssertThrowsError(try MessagePack.decode(bytes), "\(bytes.prefix(8))") }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = try? MessagePack.decode(bytes)
        }
    }
}
