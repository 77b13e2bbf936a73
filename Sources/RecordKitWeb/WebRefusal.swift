import NIOCore

/// What a connection over a cap gets (``WebLimits/maxConnections``,
/// ``WebLimits/maxConnectionsPerClient``): a 503 written at once and the socket closed, before
/// anything is read.
final class WebRefusal: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private static let answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 30\r\nConnection: close\r\nRetry-After: 1\r\n\r\ntoo many connections: retry.\r\n"

    func channelActive(context: ChannelHandlerContext) {
        let buffer = context.channel.allocator.buffer(string: Self.answer)
        let channel = context.channel
        context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in channel.close(promise: nil) }
        channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
