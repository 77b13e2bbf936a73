// rk-fuzz-web: RecordKitWeb's request path and WebSocket framing under libFuzzer (scripts/fuzz.sh).
//
// One input is what a client sends on one connection. The first byte picks what the rest is:
//   0 mod 3  raw bytes from the first byte on (request lines, headers, bodies, pipelining, garbage)
//   1 mod 3  a valid WebSocket handshake, then the rest as frames (masked or not, any lengths)
//   2 mod 3  a Range header against a file size taken from the next 8 bytes (ByteRange)
// The bytes go in chunks (sizes from the input) into the exact pipeline an accepted connection
// gets (WebServer.configureConnection) on NIO's EmbeddedChannel, with a WebSocket route and no
// HTTP route (an HTTP route runs as a task, which an EmbeddedChannel cannot host). Any trap is a
// finding. A plain build replays files given as arguments through the same function.
import Foundation
import FuzzSupport
import NIOCore
import NIOEmbedded
import RecordKitWeb

enum WebFuzz {
    static let server: WebServer = {
        var limits = WebLimits()
        limits.maxWebSocketFrameBytes = 2048
        limits.maxWebSocketMessageBytes = 4096
        limits.maxQueuedWebSocketMessages = 8
        let endpoint = WebSocketEndpoint(subprotocols: ["obswebsocket.json", "obswebsocket.msgpack"],
                                         authorize: { $0.query["deny"] == nil ? nil : .text(403, "no") },
                                         open: { connection in connection.enqueue(.text("hello")) })
        return WebServer(configuration: WebServerConfiguration(limits: limits), routes: [.webSocket("/ws", endpoint)])
    }()

    static let handshake = Array(("GET /ws?a=b HTTP/1.1\r\nHost: 127.0.0.1:0\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: obswebsocket.json\r\n\r\n").utf8)

    static func run(_ bytes: [UInt8]) {
        guard let mode = bytes.first else { return }
        switch mode % 3 {
        case 0: feed(bytes)
        case 1: feed(handshake + bytes.dropFirst())
        default:
            guard bytes.count >= 9 else { return }
            let size = bytes[1..<9].reduce(Int64(0)) { $0 << 8 | Int64($1) } & Int64.max
            if case .partial(let first, let last) = ByteRange.resolve(String(decoding: bytes.dropFirst(9), as: UTF8.self), size: size) {
                precondition(first >= 0 && first <= last && last < size, "a range outside the file")
            }
        }
    }

    static func feed(_ bytes: [UInt8]) {
        let channel = EmbeddedChannel()
        do {
            try server.configureConnection(channel, port: 0)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        } catch {
            preconditionFailure("the pipeline could not be built: \(error)")
        }
        var offset = 0
        var chunk = 1
        while offset < bytes.count, channel.isActive {
            chunk = (chunk * 7 + Int(bytes[offset])) % 700 + 1
            let end = min(bytes.count, offset + chunk)
            _ = try? channel.writeInbound(channel.allocator.buffer(bytes: bytes[offset..<end]))
            offset = end
            while (try? channel.readOutbound(as: IOData.self)) ?? nil != nil {}
            _ = try? channel.readInbound(as: ByteBuffer.self)
        }
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    WebFuzz.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

#if !RK_FUZZ
/// A plain build: replays the files (or directories of files) given as arguments.
@main
struct Replay {
    static func main() { FuzzDriver.replay("rk-fuzz-web", WebFuzz.run) }
}
#else
// SwiftPM links an executable's entry as `rk_fuzz_web_main` (main is an alias of it): in the
// libFuzzer build, that entry hands over to libFuzzer's own driver.
@_cdecl("rk_fuzz_web_main")
func fuzzEntry(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    FuzzDriver.run(argc, argv, fuzzWebInput)
}
#endif
