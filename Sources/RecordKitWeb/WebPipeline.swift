import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Builds the handlers of one accepted connection: NIO's HTTP/1 parser with our head limits, the
/// WebSocket upgrader (frame limit, subprotocols, Host/Origin/authorization checks), the idle
/// timer and ``WebHTTPHandler``. After an upgrade: the frame aggregator (message limit) and
/// ``WebSocketFrameHandler``. The fuzzer builds exactly this on an `EmbeddedChannel`.
enum WebPipeline {
    /// Adds the handlers to `channel`'s pipeline; call on its event loop.
    static func configure(_ channel: any Channel, site: WebSite) throws {
        let limits = site.limits
        var decoderLimits = NIOHTTPDecoderLimitConfiguration()
        decoderLimits.maxHeaderFieldSize = limits.maxHeadBytes
        decoderLimits.maxHeaderListSize = limits.maxHeadBytes
        decoderLimits.maxHeaderFieldCount = limits.maxHeaderCount
        let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes, limitConfiguration: decoderLimits))
        let encoder = HTTPResponseEncoder()
        let http = WebHTTPHandler(site: site)
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: limits.maxWebSocketFrameBytes, automaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                channel.eventLoop.makeSucceededFuture(upgradeHeaders(site: site, head: head))
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    try upgradePipeline(channel, site: site, head: head)
                }
            })
        let upgrade = HTTPServerUpgradeHandler(upgraders: [upgrader], httpEncoder: encoder, extraHTTPHandlers: [decoder, http],
                                               upgradeCompletionHandler: { _ in })
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(IdleStateHandler(allTimeout: .milliseconds(Int64(limits.idleTimeout * 1000))), name: "rk-web-idle")
        try sync.addHandler(decoder)
        try sync.addHandler(encoder)
        try sync.addHandler(upgrade)
        try sync.addHandler(http)
    }

    /// The extra headers of a 101 (the subprotocol), or nil to answer the request as plain HTTP
    /// (``WebHTTPHandler`` then says why: 403, 400, the endpoint's refusal).
    private static func upgradeHeaders(site: WebSite, head: HTTPRequestHead) -> HTTPHeaders? {
        let request = webRequest(head)
        guard site.refusal(request, isUpgrade: true) == nil, let route = site.route(for: request.path),
              case .webSocket(let endpoint) = route.kind, head.method == .GET, endpoint.authorize(request) == nil,
              let chosen = endpoint.negotiate(request.header("sec-websocket-protocol")) else { return nil }
        var headers = HTTPHeaders()
        if let chosen { headers.add(name: "Sec-WebSocket-Protocol", value: chosen) }
        return headers
    }

    private static func upgradePipeline(_ channel: any Channel, site: WebSite, head: HTTPRequestHead) throws {
        let request = webRequest(head)
        guard let route = site.route(for: request.path), case .webSocket(let endpoint) = route.kind,
              let chosen = endpoint.negotiate(request.header("sec-websocket-protocol")) else {
            throw ChannelError.inappropriateOperationForState
        }
        let limits = site.limits
        let sync = channel.pipeline.syncOperations
        // A WebSocket is idle when the client sends nothing, not even the pongs to our pings.
        if let idle = try? sync.handler(type: IdleStateHandler.self) { sync.removeHandler(idle, promise: nil) }
        try sync.addHandler(IdleStateHandler(readTimeout: .milliseconds(Int64(limits.idleTimeout * 1000))))
        try sync.addHandler(WebSocketMaskCheck())
        try sync.addHandler(NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 1, maxAccumulatedFrameCount: 1024,
                                                        maxAccumulatedFrameSize: limits.maxWebSocketMessageBytes))
        let connection = WebSocketConnection(request: request, subprotocol: chosen, channel: channel, limits: limits)
        try sync.addHandler(WebSocketFrameHandler(connection: connection, open: endpoint.open, idleTimeout: limits.idleTimeout))
    }

    private static func webRequest(_ head: HTTPRequestHead) -> WebRequest {
        WebRequest(method: head.method.rawValue, target: head.uri, headers: head.headers.map { ($0.name, $0.value) })
    }
}
