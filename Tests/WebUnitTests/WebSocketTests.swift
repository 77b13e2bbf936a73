import Foundation
@testable import RecordKitWeb
import XCTest

/// WebSockets on ``WebServer``: the handshake with subprotocols (obs-websocket's), text and
/// binary both ways, and every malformed or oversized frame answered with its close code, the
/// server serving on.
final class WebSocketTests: XCTestCase {
    private var server: WebServer!
    private var port: UInt16 = 0

    override func setUpWithError() throws {
        var limits = WebLimits()
        limits.maxWebSocketFrameBytes = 4096
        limits.maxWebSocketMessageBytes = 8192
        let echo = WebSocketEndpoint(subprotocols: ["obswebsocket.json", "obswebsocket.msgpack"], requiresSubprotocol: false,
                                     authorize: { request in request.query["deny"] == nil ? nil : .text(403, "no") }) { connection in
            Task {
                for await message in connection.messages {
                    try? await connection.send(message)
                    if case .text("subprotocol?") = message { try? await connection.send(.text(connection.subprotocol ?? "none")) }
                }
            }
        }
        server = WebServer(configuration: WebServerConfiguration(limits: limits),
                           routes: [.webSocket("/ws", echo), .http("/hello") { _ in .text(200, "hello") }])
        port = try server.start()
    }

    override func tearDown() {
        server.stop()
    }

    private func handshake(_ extra: String = "", target: String = "/ws") throws -> (RawClient, Int, [String: String]) {
        let client = try RawClient(port: port)
        client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(extra)\r\n")
        let (bytes, _) = client.read(timeout: 5) { RawClient.headEnd($0) != nil }
        guard let end = RawClient.headEnd(bytes), let (status, headers) = RawClient.parseHead(bytes[..<end]) else { return (client, 0, [:]) }
        return (client, status, headers)
    }

    /// A masked client frame.
    private func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            bytes.append(maskBit | UInt8(payload.count))
        } else if payload.count < 65536 {
            bytes.append(maskBit | 126)
            bytes += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        guard masked else { return bytes + payload }
        let key: [UInt8] = [1, 2, 3, 4]
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    /// Server frames as (opcode, payload), read until `count` frames or a close.
    private func frames(_ client: RawClient, count: Int) -> [(UInt8, [UInt8])] {
        var parsed: [(UInt8, [UInt8])] = []
        _ = client.read(timeout: 5) { bytes in
            parsed = []
            var index = 0
            while index + 2 <= bytes.count {
                let opcode = bytes[index] & 0x0F
                var length = Int(bytes[index + 1] & 0x7F)
                var start = index + 2
                if length == 126 {
                    guard start + 2 <= bytes.count else { break }
                    length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
                    start += 2
                } else if length == 127 {
                    guard start + 8 <= bytes.count else { break }
                    length = bytes[start..<(start + 8)].reduce(0) { $0 << 8 | Int($1) }
                    start += 8
                }
                guard start + length <= bytes.count else { break }
                parsed.append((opcode, Array(bytes[start..<(start + length)])))
                index = start + length
            }
            return parsed.count >= count || parsed.contains { $0.0 == 8 }
        }
        return parsed
    }

    private func closeCode(_ frames: [(UInt8, [UInt8])]) -> Int? {
        guard let close = frames.first(where: { $0.0 == 8 }), close.1.count >= 2 else { return nil }
        return Int(close.1[0]) << 8 | Int(close.1[1])
    }

    func testSubprotocolIsEchoedAndMessagesGoBothWays() throws {
        let (client, status, headers) = try handshake("Sec-WebSocket-Protocol: obswebsocket.msgpack, obswebsocket.json\r\n")
        XCTAssertEqual(status, 101)
        XCTAssertEqual(headers["sec-websocket-protocol"], "obswebsocket.json")
        XCTAssertEqual(headers["sec-websocket-accept"], "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        client.send(frame(1, Array("subprotocol?".utf8)))
        client.send(frame(2, [0, 1, 2, 255]))
        // Fragmented text, with a ping in the middle.
        client.send(frame(1, Array("hel".utf8), fin: false) + frame(9, [7]) + frame(0, Array("lo".utf8)))
        let got = frames(client, count: 5)
        // The pong answers on the event loop, the echoes come from a task: only each kind's order is fixed.
        XCTAssertEqual(got.filter { $0.0 == 10 }.map(\.1), [[7]], "the ping is answered with its payload")
        let data = got.filter { $0.0 == 1 || $0.0 == 2 }
        XCTAssertEqual(data.map(\.0), [1, 1, 2, 1])
        guard data.count == 4 else { return }
        XCTAssertEqual(data.map { String(decoding: $0.1, as: UTF8.self) }[0...1], ["subprotocol?", "obswebsocket.json"])
        XCTAssertEqual(data[2].1, [0, 1, 2, 255])
        XCTAssertEqual(String(decoding: data[3].1, as: UTF8.self), "hello", "fragments are put together")
    }

    func testNoSubprotocolIsAcceptedWhenNotRequired() throws {
        let (_, status, headers) = try handshake()
        XCTAssertEqual(status, 101)
        XCTAssertNil(headers["sec-websocket-protocol"])
    }

    func testRefusals() throws {
        XCTAssertEqual(try handshake("Origin: http://evil.example\r\n").1, 403)
        XCTAssertEqual(try handshake("Origin: http://localhost:\(port)\r\n").1, 101)
        XCTAssertEqual(try handshake(target: "/ws?deny=1").1, 403)
        XCTAssertEqual(try handshake(target: "/nothing").1, 404)
        let badHost = try RawClient(port: port)
        badHost.send("GET /ws HTTP/1.1\r\nHost: rebound.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        XCTAssertEqual(badHost.response()?.status, 403)
        let noKey = try RawClient(port: port)
        noKey.send("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n")
        XCTAssertEqual(noKey.response()?.status, 400)
        let plain = try RawClient(port: port)
        plain.send("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        XCTAssertEqual(plain.response()?.status, 426)
    }

    func testMalformedAndOversizedFramesAreClosedWithTheirCode() throws {
        let cases: [(String, [UInt8], Int)] = [
            ("frame over the limit", frame(2, [UInt8](repeating: 1, count: 5000)), 1009),
            ("declared 2^63 bytes", [0x82, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4], 1009),
            ("message over the limit", (0..<3).flatMap { frame($0 == 0 ? 2 : 0, [UInt8](repeating: 1, count: 4000), fin: $0 == 2) }, 1009),
            ("unmasked", frame(1, Array("hi".utf8), masked: false), 1002),
            ("bad UTF-8", frame(1, [0xFF, 0xFE]), 1007),
            ("continuation first", frame(0, [1]), 1002),
            ("reserved opcode", frame(3, [1]), 1002),
            ("long ping", frame(9, [UInt8](repeating: 0, count: 200)), 1002),
        ]
        for (name, bytes, code) in cases {
            let (client, status, _) = try handshake()
            XCTAssertEqual(status, 101, name)
            client.send(bytes)
            let got = frames(client, count: 1)
            XCTAssertEqual(closeCode(got), code, name)
            XCTAssertTrue(client.read(timeout: 5).closed, "\(name): the server closes the socket")
        }
        let check = try RawClient(port: port)
        check.send("GET /hello HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        XCTAssertEqual(check.response()?.status, 200)
    }

    func testCloseHandshake() throws {
        let (client, _, _) = try handshake()
        client.send(frame(8, [0x03, 0xE8]))
        XCTAssertEqual(closeCode(frames(client, count: 1)), 1000)
        XCTAssertTrue(client.read(timeout: 5).closed)
    }
}
