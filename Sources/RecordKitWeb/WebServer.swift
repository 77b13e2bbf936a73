import NIOCore
import NIOPosix
import Synchronization

/// The one HTTP/WebSocket server of every loopback surface (the preview and review page, the
/// obs-websocket server, the metrics endpoint): SwiftNIO on 127.0.0.1 only, with the bounds of
/// ``WebLimits``, the Host and Origin checks of ``WebOriginPolicy``, Range done right
/// (``ByteRange``), and WebSockets with subprotocols (``WebSocketEndpoint``).
///
/// Why SwiftNIO (docs/WEB.md): its HTTP/1 parser (llhttp) is incremental and linear, and stops at
/// configurable head limits; its WebSocket decoder refuses a frame over a set size before
/// buffering it. Every other bound (deadlines, caps, body size) is a handler of ours in a
/// pipeline we own, which a framework on top (Hummingbird) would hide without adding a bound.
/// FlyingFox, used before, parsed a long line in quadratic time and trapped on Range arithmetic.
///
/// Threading: any thread. I/O runs on NIO's shared event loops (not Swift's cooperative pool);
/// route handlers run as tasks. A client can never make a handler of the server trap.
package final class WebServer: Sendable {
    private let configuration: WebServerConfiguration
    private let routes: [WebRoute]
    private let group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    private let limiter: WebConnectionLimiter
    private struct State {
        var listener: (any Channel)?
        var connections: [ObjectIdentifier: any Channel] = [:]
        var stopped = false
    }
    /// The listener and the open connections, shared with the channel initializer.
    private final class Registry: Sendable {
        let state = Mutex(State())
    }
    private let registry = Registry()

    /// A server for `routes` (matched in order); nothing listens before ``start()``.
    package init(configuration: WebServerConfiguration = WebServerConfiguration(), routes: [WebRoute]) {
        self.configuration = configuration
        self.routes = routes
        limiter = WebConnectionLimiter(maxTotal: configuration.limits.maxConnections,
                                       maxPerClient: configuration.limits.maxConnectionsPerClient)
    }

    /// Binds 127.0.0.1 and returns the port; throws when it cannot (the port is taken, …).
    /// Blocks the calling thread for the bind; never call it from an event loop.
    @available(*, noasync, message: "use the async start()")
    package func start() throws -> UInt16 {
        try register(try bootstrap().wait()).get()
    }

    /// Binds 127.0.0.1 and returns the port; throws when it cannot.
    package func start() async throws -> UInt16 {
        try register(try await bootstrap().get()).get()
    }

    /// The port listened on, or nil before ``start()`` and after ``stop()``.
    package var port: UInt16? {
        registry.state.withLock { $0.listener?.localAddress?.port.map { UInt16($0) } }
    }

    /// Connections open now (for tests and status).
    package var openConnections: Int { limiter.open }

    /// Stops listening and closes every connection; returns at once.
    package func stop() {
        let (listener, connections) = registry.state.withLock { s -> ((any Channel)?, [any Channel]) in
            s.stopped = true
            defer {
                s.listener = nil
                s.connections = [:]
            }
            return (s.listener, Array(s.connections.values))
        }
        listener?.close(promise: nil)
        for connection in connections { connection.close(promise: nil) }
    }

    /// Builds on `channel` the handlers an accepted connection gets (as if accepted on `port`),
    /// without listening or counting it: what the fuzzer drives on an `EmbeddedChannel`. Call on
    /// the channel's event loop.
    package func configureConnection(_ channel: any Channel, port: Int) throws {
        let site = WebSite(routes: routes, limits: configuration.limits,
                           policy: WebOriginPolicy(port: port, configured: configuration.allowedOrigins))
        try WebPipeline.configure(channel, site: site)
    }

    private func register(_ listener: any Channel) -> Result<UInt16, any Error> {
        let stopped = registry.state.withLock { s in
            if !s.stopped { s.listener = listener }
            return s.stopped
        }
        guard !stopped, let port = listener.localAddress?.port else {
            listener.close(promise: nil)
            return .failure(ChannelError.ioOnClosedChannel)
        }
        return .success(UInt16(port))
    }

    private func bootstrap() -> EventLoopFuture<any Channel> {
        let limits = configuration.limits
        let limiter = self.limiter
        let routes = self.routes
        let allowed = configuration.allowedOrigins
        let registry = self.registry
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // A TCP-level option: `.socketOption(.tcp_nodelay)` would set level SOL_SOCKET, where
            // option 1 is SO_DEBUG, which only root may set: every connection of a non-root
            // service was closed at accept.
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let client = channel.remoteAddress?.ipAddress ?? "?"
                    guard limiter.admit(client) else {
                        try channel.pipeline.syncOperations.addHandler(WebRefusal())
                        return
                    }
                    let id = ObjectIdentifier(channel)
                    registry.state.withLock { $0.connections[id] = channel }
                    channel.closeFuture.whenComplete { _ in
                        limiter.release(client)
                        registry.state.withLock { _ = $0.connections.removeValue(forKey: id) }
                    }
                    let port = channel.localAddress?.port ?? 0
                    let site = WebSite(routes: routes, limits: limits, policy: WebOriginPolicy(port: port, configured: allowed))
                    try WebPipeline.configure(channel, site: site)
                }
            }
            .bind(host: "127.0.0.1", port: Int(configuration.port))
    }
}
