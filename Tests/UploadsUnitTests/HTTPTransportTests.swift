import Foundation
@testable import RecordKitUploads
import XCTest

/// The uploads' HTTP client (libcurl) against a loopback peer that shows each request exactly as
/// it arrived: what S3 and tus servers rely on (a streamed body with its length, not chunked; no
/// `Expect`; no redirect followed) and how each failure is told.
final class HTTPTransportTests: XCTestCase {
    private let ok = "HTTP/1.1 200 OK\r\nETag: \"abc\"\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"

    func testAStreamedBodyGoesWithItsLengthNotChunkedAndTheReplyIsRead() throws {
        let peer = try LoopbackHTTPPeer(response: ok)
        defer { peer.stop() }
        let transport = HTTPTransport()
        defer { transport.shutdown() }
        let pattern = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var offset = 0
        var calls = 0
        let reply = try transport.send(.PUT, url: "http://127.0.0.1:\(peer.port)/bucket/key?X-Amz-Signature=x",
                                       headers: [("Content-Type", "application/octet-stream"), ("x-amz-date", "20261127T000000Z")],
                                       body: .stream(length: Int64(pattern.count)) { buffer in
                                           calls += 1
                                           let n = min(buffer.count, pattern.count - offset)
                                           pattern.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
                                           offset += n
                                           return n
                                       }, host: "peer")
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.header("etag"), "\"abc\"")
        XCTAssertEqual(reply.text, "hello")
        let request = try XCTUnwrap(peer.requests.first)
        XCTAssertTrue(request.head.hasPrefix("PUT /bucket/key?X-Amz-Signature=x HTTP/1.1\r\n"), request.head)
        XCTAssertEqual(request.header("Content-Length"), "300000")
        XCTAssertNil(request.header("Transfer-Encoding"), request.head)
        XCTAssertNil(request.header("Expect"), request.head)
        XCTAssertEqual(request.header("x-amz-date"), "20261127T000000Z")
        XCTAssertEqual(request.body, pattern)
        XCTAssertGreaterThan(calls, 1, "the body was read in pieces as it was sent")
    }

    func testABodyInMemoryAndAnEmptyPOSTAndAHEADAreSentAsSuch() throws {
        let peer = try LoopbackHTTPPeer(response: "HTTP/1.1 204 No Content\r\nUpload-Offset: 3\r\nConnection: close\r\n\r\n")
        defer { peer.stop() }
        let transport = HTTPTransport()
        defer { transport.shutdown() }
        let url = "http://127.0.0.1:\(peer.port)/files/1"
        XCTAssertEqual(try transport.send(.PATCH, url: url, headers: [], body: .bytes([1, 2, 3]), host: "peer").header("Upload-Offset"), "3")
        XCTAssertEqual(try transport.send(.POST, url: url, headers: [], body: nil, host: "peer").status, 204)
        XCTAssertEqual(try transport.send(.HEAD, url: url, headers: [], body: nil, host: "peer").status, 204)
        let requests = peer.requests
        XCTAssertEqual(requests.map { String($0.head.prefix { $0 != " " }) }, ["PATCH", "POST", "HEAD"])
        XCTAssertEqual(requests[0].body, [1, 2, 3])
        XCTAssertEqual(requests[1].header("Content-Length"), "0")
        XCTAssertNil(requests[2].header("Content-Length"))
    }

    func testSeveralRequestsInFlightAllEnd() throws {
        let peer = try LoopbackHTTPPeer(response: ok)
        defer { peer.stop() }
        let transport = HTTPTransport()
        defer { transport.shutdown() }
        let started = (1...4).map { n in
            transport.start(.PUT, url: "http://127.0.0.1:\(peer.port)/part/\(n)", headers: [], body: .bytes([UInt8](repeating: UInt8(n), count: 100_000)))
        }
        // Waited for out of order: waiting for one moves the others.
        for request in started.reversed() { XCTAssertEqual(try transport.wait(request, host: "peer").status, 200) }
        XCTAssertEqual(Set(peer.requests.map { $0.body.first ?? 0 }), [1, 2, 3, 4])
    }

    func testARedirectIsAnsweredNotFollowed() throws {
        let peer = try LoopbackHTTPPeer(response: "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:1/elsewhere\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        defer { peer.stop() }
        let transport = HTTPTransport()
        defer { transport.shutdown() }
        let reply = try transport.send(.PUT, url: "http://127.0.0.1:\(peer.port)/signed", headers: [], body: .bytes([7]), host: "peer")
        XCTAssertEqual(reply.status, 307)
        XCTAssertEqual(peer.requests.count, 1)
    }

    func testFailuresAreTransientWithAShortReasonAndNoURL() throws {
        // Nothing listens on a port just closed.
        let closed = try LoopbackHTTPPeer(response: nil)
        let port = closed.port
        closed.stop()
        let transport = HTTPTransport()
        defer { transport.shutdown() }
        XCTAssertThrowsError(try transport.send(.GET, url: "http://127.0.0.1:\(port)/x?X-Amz-Signature=secret", headers: [], body: nil, host: "127.0.0.1:\(port)")) {
            let e = $0 as? UploadError
            XCTAssertEqual(e?.kind, .transient)
            XCTAssertEqual(e?.message, "cannot reach 127.0.0.1:\(port): connection refused")
        }
        // A server that takes the request and never answers, within a request's own time limit.
        let silent = try LoopbackHTTPPeer(response: nil)
        defer { silent.stop() }
        let request = transport.start(.GET, url: "http://127.0.0.1:\(silent.port)/x?X-Amz-Signature=secret", headers: [], body: nil, timeout: 1)
        XCTAssertThrowsError(try transport.wait(request, host: "silent")) {
            XCTAssertEqual(($0 as? UploadError)?.message, "cannot reach silent: no answer in the time allowed")
        }
        // 503 with Retry-After: transient, with the wait the server asked for.
        let busy = try LoopbackHTTPPeer(response: "HTTP/1.1 503 Slow Down\r\nRetry-After: 7\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        defer { busy.stop() }
        XCTAssertThrowsError(try transport.send(.GET, url: "http://127.0.0.1:\(busy.port)/x", headers: [], body: nil, host: "busy")) {
            let e = $0 as? UploadError
            XCTAssertEqual(e?.kind, .transient)
            XCTAssertEqual(e?.retryAfter, 7)
        }
    }

    func testWhatAStreamedBodyThrowsEndsTheRequestWithThatError() throws {
        let peer = try LoopbackHTTPPeer(response: nil)
        defer { peer.stop() }
        let transport = HTTPTransport()
        defer { transport.shutdown() }
        var sent = 0
        XCTAssertThrowsError(try transport.send(.PUT, url: "http://127.0.0.1:\(peer.port)/x", headers: [],
                                                body: .stream(length: 1 << 20) { buffer throws(UploadError) in
                                                    if sent >= 100_000 { throw UploadError(.paused, "paused by the user") }
                                                    buffer.initializeMemory(as: UInt8.self, repeating: 1)
                                                    sent += buffer.count
                                                    return buffer.count
                                                }, host: "peer")) {
            XCTAssertEqual(($0 as? UploadError)?.kind, .paused)
        }
    }
}
