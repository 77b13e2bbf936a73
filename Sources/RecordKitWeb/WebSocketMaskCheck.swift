import NIOCore
import NIOWebSocket

/// Refuses unmasked client frames (RFC 6455, 5.1) before `NIOWebSocketFrameAggregator`, which
/// unmasks what it puts together and so hides whether the client masked: an unmasked frame is
/// dropped and reported as ``Unmasked/frame`` (``WebSocketFrameHandler`` closes with 1002).
final class WebSocketMaskCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    /// The error fired for an unmasked frame.
    enum Unmasked: Error {
        case frame
    }

    private var failed = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        guard unwrapInboundIn(data).maskKey != nil else {
            failed = true
            return context.fireErrorCaught(Unmasked.frame)
        }
        context.fireChannelRead(data)
    }
}
