import Foundation
@testable import RecordKitWeb
import XCTest

/// ``WebServer`` over real sockets on 127.0.0.1: routes, Host and Origin, every limit answered
/// (431, 413, 408, 503) within a bound, and files with Range.
final class WebServerTests: XCTestCase {
    private var server: WebServer!
    private var port: UInt16 = 0
    private var movie = ""

    override func setUpWithError() throws {
        movie = NSTemporaryDirectory() + "rk-web-\(getpid())-\(UUID().uuidString).bin"
        _ = FileManager.default.createFile(atPath: movie, contents: Data((0..<1000).map { UInt8($0 % 251) }))
        var limits = WebLimits()
        limits.headerTimeout = 1
        limits.maxConnections = 20
        limits.maxConnectionsPerClient = 20
        limits.maxBodyBytes = 1000
        let movie = self.movie
        server = WebServer(configuration: WebServerConfiguration(limits: limits), routes: [
            .http("/hello") { _ in .text(200, "hello") },
            .http("/echo", methods: ["POST"]) { request in WebResponse(status: 200, body: .bytes(request.body)) },
            .http("/query") { request in .text(200, request.query["a"] ?? "-") },
            .http("/movie") { _ in .file(movie, contentType: "video/mp4") },
            .http("/missing") { _ in .file("/nonexistent/file", contentType: "video/mp4") },
        ])
        port = try server.start()
    }

    override func tearDown() {
        server.stop()
        unlink(movie)
    }

    private func get(_ target: String, headers: String = "", method: String = "GET") throws -> (status: Int, headers: [String: String], body: [UInt8], closed: Bool)? {
        let client = try RawClient(port: port)
        client.send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(headers)\r\n")
        return client.response()
    }

    func testRoutesAndQuery() throws {
        XCTAssertEqual(try get("/hello")?.body, Array("hello".utf8))
        XCTAssertEqual(try get("/query?a=b%20c+d")?.body, Array("b c d".utf8))
        XCTAssertEqual(try get("/nothing")?.status, 404)
        XCTAssertEqual(try get("/hello", method: "DELETE")?.status, 405)
    }

    func testKeepAliveAndPipelining() throws {
        let client = try RawClient(port: port)
        let request = "GET /hello HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n"
        client.send(request + request + request)
        let (bytes, _) = client.read(timeout: 5) { String(decoding: $0, as: UTF8.self).components(separatedBy: "hello").count == 4 }
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self).components(separatedBy: "HTTP/1.1 200").count, 4)
    }

    func testForeignHostAndOrigin() throws {
        let client = try RawClient(port: port)
        client.send("GET /hello HTTP/1.1\r\nHost: evil.example:\(port)\r\n\r\n")
        XCTAssertEqual(client.response()?.status, 403)
        let noHost = try RawClient(port: port)
        noHost.send("GET /hello HTTP/1.0\r\n\r\n")
        XCTAssertEqual(noHost.response()?.status, 403)
        let foreign = try RawClient(port: port)
        foreign.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://evil.example\r\nContent-Length: 2\r\n\r\nhi")
        XCTAssertEqual(foreign.response()?.status, 403)
        // Same origin and no origin (curl) may post; a GET from anywhere is fine (read only).
        let same = try RawClient(port: port)
        same.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\nContent-Length: 2\r\n\r\nhi")
        XCTAssertEqual(same.response()?.body, Array("hi".utf8))
        let none = try RawClient(port: port)
        none.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 2\r\n\r\nhi")
        XCTAssertEqual(none.response()?.status, 200)
        XCTAssertEqual(try get("/hello", headers: "Origin: http://evil.example\r\n")?.status, 200)
    }

    /// A 1 MiB request line and a 1 MiB header are answered 431 at the limit, at once, without
    /// reading the rest; 200 fields are 431 too.
    func testLongLinesAndManyHeadersAre431() throws {
        let start = Date()
        let longLine = try RawClient(port: port)
        longLine.send("GET /" + String(repeating: "a", count: 1 << 20) + " HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        XCTAssertEqual(longLine.response()?.status, 431)
        let longHeader = try RawClient(port: port)
        longHeader.send("GET /hello HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Long: " + String(repeating: "b", count: 1 << 20) + "\r\n\r\n")
        XCTAssertEqual(longHeader.response()?.status, 431)
        let many = try RawClient(port: port)
        many.send("GET /hello HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n" + (0..<200).map { "X-\($0): y\r\n" }.joined() + "\r\n")
        XCTAssertEqual(many.response()?.status, 431)
        XCTAssertLessThan(Date().timeIntervalSince(start), 30)
        XCTAssertEqual(try get("/hello")?.status, 200)
    }

    func testBodyLimitIs413() throws {
        let declared = try RawClient(port: port)
        declared.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 100000\r\n\r\n")
        XCTAssertEqual(declared.response()?.status, 413)
        let chunked = try RawClient(port: port)
        chunked.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in 0..<5 { chunked.send("200\r\n" + String(repeating: "z", count: 512) + "\r\n") }
        XCTAssertEqual(chunked.response()?.status, 413)
    }

    /// A client that trickles its head is answered 408 when the header timeout (1 s here) ends.
    func testSlowHeadIs408() throws {
        let client = try RawClient(port: port)
        client.send("GET /hello HTTP/1.1\r\n")
        let started = Date()
        for _ in 0..<30 {
            guard client.send("X-A: b\r\n") else { break }
            usleep(100_000)
            if Date().timeIntervalSince(started) > 2.5 { break }
        }
        let answer = client.response(timeout: 5)
        XCTAssertEqual(answer?.status, 408)
        XCTAssertTrue(answer?.closed == true || client.read(timeout: 2).closed, "closed after the 408")
    }

    /// Connections over the cap (20 here) get 503 at once; the ones below it are served; the
    /// held ones are closed by the header timeout, and the server serves again.
    func testConnectionCapIs503() throws {
        var held: [RawClient] = []
        for _ in 0..<20 {
            let client = try RawClient(port: port)
            client.send("GET /hello HTTP/1.1\r\n")
            held.append(client)
        }
        usleep(200_000)
        let over = try RawClient(port: port)
        XCTAssertEqual(over.response()?.status, 503)
        XCTAssertLessThanOrEqual(server.openConnections, 20)
        for client in held { _ = client.read(timeout: 5) }
        usleep(200_000)
        XCTAssertEqual(try get("/hello")?.status, 200)
        XCTAssertLessThanOrEqual(server.openConnections, 1)
    }

    func testFileAndRange() throws {
        let whole = try get("/movie")
        XCTAssertEqual(whole?.status, 200)
        XCTAssertEqual(whole?.body.count, 1000)
        XCTAssertEqual(whole?.headers["accept-ranges"], "bytes")
        let part = try get("/movie", headers: "Range: bytes=10-19\r\n")
        XCTAssertEqual(part?.status, 206)
        XCTAssertEqual(part?.headers["content-range"], "bytes 10-19/1000")
        XCTAssertEqual(part?.body, (10..<20).map { UInt8($0 % 251) })
        XCTAssertEqual(try get("/movie", headers: "Range: bytes=-10\r\n")?.body.count, 10)
        for bad in ["bytes=9223372036854775800-", "bytes=999999999-", "bytes=1000-", "bytes=-5-10", "bytes=-0", "bytes=5-1"] {
            let answer = try get("/movie", headers: "Range: \(bad)\r\n")
            XCTAssertEqual(answer?.status, 416, bad)
            XCTAssertEqual(answer?.headers["content-range"], "bytes */1000", bad)
        }
        let head = try get("/movie", method: "HEAD")
        XCTAssertEqual(head?.status, 200)
        XCTAssertEqual(head?.headers["content-length"], "1000")
        XCTAssertEqual(try get("/missing")?.status, 404)
        XCTAssertEqual(try get("/hello")?.status, 200)
    }

    func testMalformedRequestIs400() throws {
        for garbage in ["\u{1}\u{2}\u{3}\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "GET\r\n\r\n"] {
            let client = try RawClient(port: port)
            client.send(garbage)
            XCTAssertEqual(client.response()?.status, 400, garbage)
        }
    }
}
