import NIOCore
import NIOWebSocket

/// The last handler of an upgraded connection: whole messages (after
/// `NIOWebSocketFrameAggregator`) into ``WebSocketConnection/messages``; pings answered; the
/// close handshake; a ping every third of the idle timeout, so a live client always answers
/// something; and every protocol error (unmasked frame (``WebSocketMaskCheck``), bad UTF-8, oversized frame or message,
/// a fragment out of order) answered with its close code and the connection closed.
final class WebSocketFrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let connection: WebSocketConnection
    private let open: @Sendable (WebSocketConnection) -> Void
    private let pingInterval: TimeAmount
    private var pinger: RepeatedTask?

    init(connection: WebSocketConnection, open: @escaping @Sendable (WebSocketConnection) -> Void, idleTimeout: Double) {
        self.connection = connection
        self.open = open
        pingInterval = .milliseconds(Int64(max(idleTimeout / 3, 0.05) * 1000))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let connection = self.connection
        pinger = context.eventLoop.scheduleRepeatedTask(initialDelay: pingInterval, delay: pingInterval) { _ in
            let ping = WebSocketFrame(fin: true, opcode: .ping, data: connection.channel.allocator.buffer(capacity: 0))
            connection.channel.writeAndFlush(ping, promise: nil)
        }
        open(connection)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pinger?.cancel()
        connection.continuation.finish()
    }

    func channelInactive(context: ChannelHandlerContext) {
        pinger?.cancel()
        connection.continuation.finish()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            var payload = frame.unmaskedData
            let bytes = payload.readBytes(length: payload.readableBytes) ?? []
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return connection.close(code: 1007, reason: "text is not UTF-8")
            }
            deliver(.text(text))
        case .binary:
            var payload = frame.unmaskedData
            deliver(.binary(payload.readBytes(length: payload.readableBytes) ?? []))
        case .ping:
            guard frame.fin, frame.length <= 125 else { return connection.close(code: 1002, reason: "bad ping") }
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            break
        case .connectionClose:
            connection.close(code: 1000)
        default:
            connection.close(code: 1002, reason: "unknown opcode")
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case NIOWebSocketError.invalidFrameLength, NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge,
             NIOWebSocketFrameAggregator.Error.tooManyFragments:
            connection.close(code: 1009, reason: "message too big")
        case WebSocketMaskCheck.Unmasked.frame:
            connection.close(code: 1002, reason: "client frames must be masked")
        default:
            connection.close(code: 1002, reason: "protocol error")
        }
    }

    private func deliver(_ message: WebSocketMessage) {
        if case .dropped = connection.continuation.yield(message) {
            connection.close(code: 1008, reason: "too many unread messages")
        }
    }
}
