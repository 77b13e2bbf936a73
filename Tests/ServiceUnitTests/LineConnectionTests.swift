import Glibc
import RecordKitControl
import XCTest

/// A closed connection's descriptor number is reused by the next socket: aborting the closed
/// connection (an `events` subscriber whose peer left, when the next event is published) must
/// not shut that other socket down.
final class LineConnectionTests: XCTestCase {
    func testAbortAfterCloseLeavesTheSocketThatReusedTheDescriptorAlone() throws {
        var first: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &first), 0)
        let gone = LineConnection(fd: first[0])
        gone.close()
        Glibc.close(first[1])
        var second: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &second), 0)
        defer { Glibc.close(second[0]); Glibc.close(second[1]) }
        let reused = try XCTUnwrap(second.firstIndex(of: first[0]), "the lowest free descriptor is reused: \(first) then \(second)")
        gone.abort()
        let live = LineConnection(fd: second[1 - reused])
        let peer = LineConnection(fd: second[reused])
        XCTAssertTrue(live.writeLine(Array("reply".utf8)), "the new connection still writes")
        guard case .line(let bytes) = peer.readLine() else { return XCTFail("the new connection was shut down") }
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "reply")
    }
}
