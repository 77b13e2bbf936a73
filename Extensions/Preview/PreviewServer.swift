import Foundation
import RecordKit
import RecordKitWeb

/// The preview's web server: RecordKitWeb's hardened server (docs/WEB.md) on 127.0.0.1 only, a
/// random free port unless one is given, the ``TokenGate`` in front of every route, the
/// WebSocket upgrade included.
///
/// The server's I/O runs on NIO's event loops; route handlers are tasks (network control, not
/// per-frame media work). The recording reaches it only through ``LiveFeed``, which never
/// waits for it. Nothing is logged: a request line carries the token.
final class PreviewServer: Sendable {
    private let server: WebServer

    /// Creates a server for `site` on `port` (0: any free port); nothing listens before ``start()``.
    init(site: PreviewSite, port: UInt16) throws {
        let gate = TokenGate(site: site)
        let live = WebSocketEndpoint(authorize: { gate.refusal($0) }, open: { LiveSocketHandler(feed: site.feed).run($0) })
        server = WebServer(configuration: WebServerConfiguration(port: port), routes: [
            .webSocket("/live", live),
            .http("/", prefix: true, methods: nil) { await gate.handle($0) },
        ])
    }

    /// Starts listening and returns the port, or throws when it cannot (the port is taken, …).
    /// Blocks the calling thread (a handler's queue) for the bind, not the pool.
    func start() throws(BroadcastError) -> UInt16 {
        do { return try server.start() } catch {
            throw BroadcastError(.invalidSetup, "the preview server could not listen on 127.0.0.1: \(error)")
        }
    }

    /// Stops listening and closes every connection; returns at once.
    func stop() {
        server.stop()
    }
}
