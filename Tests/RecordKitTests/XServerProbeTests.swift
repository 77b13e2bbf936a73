import Foundation
import Glibc
import XCTest
@testable import RecordKitCapture

/// `XServerProbe`, the deadline Xlib lacks: a live server answers, a socket that accepts and
/// never answers is `silent` within the deadline, a missing one is `unreachable`.
final class XServerProbeTests: XCTestCase {
    func testTheRigsServerAnswersASilentSocketDoesNotAndAMissingOneIsUnreachable() throws {
        let display = try XCTUnwrap(ProcessInfo.processInfo.environment["DISPLAY"], "the rig's DISPLAY")
        XCTAssertEqual(XServerProbe.probe(display, timeoutMs: 3_000), .answered)

        let number = 180 + Int.random(in: 0..<9)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let path = Array("\0/tmp/.X11-unix/X\(number)".utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.enumerated() { raw[i] = b } }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        XCTAssertEqual(withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }, 0)
        XCTAssertEqual(listen(fd, 4), 0)
        let start = Date()
        XCTAssertEqual(XServerProbe.probe(":\(number)", timeoutMs: 500), .silent)
        XCTAssertLessThan(Date().timeIntervalSince(start), 3, "the probe keeps its deadline")

        XCTAssertEqual(XServerProbe.probe(":\(number + 10)", timeoutMs: 500), .unreachable)
        XCTAssertEqual(XServerProbe.probe("not a display", timeoutMs: 500), .unknown)
    }

    func testOpeningADisplayThatNeverAnswersFailsWithinItsDeadline() throws {
        let number = 170 + Int.random(in: 0..<9)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let path = Array("\0/tmp/.X11-unix/X\(number)".utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.enumerated() { raw[i] = b } }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        listen(fd, 4)
        let start = Date()
        XCTAssertThrowsError(try XDisplayConnection(name: ":\(number)")) { error in
            XCTAssertTrue("\(error)".contains("does not answer"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 6)
    }
}
