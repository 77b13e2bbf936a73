import NIOCore
import NIOWebSocket
import Synchronization

/// One open WebSocket, as an endpoint's code sees it: the messages the client sent, and ways to
/// send and to close. Pings, pongs, the close handshake, fragments, masking and UTF-8 checks are
/// the server's.
///
/// Threading: any thread or task. Memory is bounded both ways: at most
/// ``WebLimits/maxQueuedWebSocketMessages`` unread messages and
/// ``WebLimits/maxPendingWebSocketBytes`` unwritten bytes, past which the connection is closed
/// with 1008.
package final class WebSocketConnection: Sendable {
    /// The upgrade request (path, query, headers, cookies).
    package let request: WebRequest
    /// The subprotocol agreed on, or nil.
    package let subprotocol: String?
    /// The client's messages, in order; finishes when the connection closes.
    package let messages: AsyncStream<WebSocketMessage>

    let channel: any Channel
    let continuation: AsyncStream<WebSocketMessage>.Continuation
    private let maxPendingBytes: Int
    private let pendingBytes = Mutex(0)
    private let closing = Mutex(false)

    init(request: WebRequest, subprotocol: String?, channel: any Channel, limits: WebLimits) {
        self.request = request
        self.subprotocol = subprotocol
        self.channel = channel
        maxPendingBytes = limits.maxPendingWebSocketBytes
        (messages, continuation) = AsyncStream.makeStream(of: WebSocketMessage.self,
                                                          bufferingPolicy: .bufferingOldest(limits.maxQueuedWebSocketMessages))
    }

    /// Sends `message` and returns once it is written to the socket (so a loop of sends goes at
    /// the client's pace); throws when the connection is closed.
    package func send(_ message: WebSocketMessage) async throws {
        try await channel.writeAndFlush(frame(for: message)).get()
    }

    /// Queues `message` without waiting; false (and the connection closed with 1008) when the
    /// client left more than ``WebLimits/maxPendingWebSocketBytes`` unread, or it is closed.
    @discardableResult
    package func enqueue(_ message: WebSocketMessage) -> Bool {
        let frame = frame(for: message)
        let size = frame.length
        let admitted = pendingBytes.withLock { pending in
            guard pending + size <= maxPendingBytes else { return false }
            pending += size
            return true
        }
        guard admitted else {
            close(code: 1008, reason: "too much unread")
            return false
        }
        channel.writeAndFlush(frame).whenComplete { [self] _ in pendingBytes.withLock { $0 -= size } }
        return channel.isActive
    }

    /// Sends a close frame with `code` and closes the connection (once; later calls do nothing).
    package func close(code: UInt16 = 1000, reason: String = "") {
        let first = closing.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        var data = channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        data.writeInteger(code)
        data.writeString(String(reason.prefix(120)))
        let channel = self.channel
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)).whenComplete { _ in
            channel.close(promise: nil)
        }
        // A client that never reads must not hold the socket open for the close frame.
        channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
    }

    /// Whether the socket is still open.
    package var isOpen: Bool { channel.isActive }

    private func frame(for message: WebSocketMessage) -> WebSocketFrame {
        switch message {
        case .text(let text):
            var data = channel.allocator.buffer(capacity: text.utf8.count)
            data.writeString(text)
            return WebSocketFrame(fin: true, opcode: .text, data: data)
        case .binary(let bytes):
            return WebSocketFrame(fin: true, opcode: .binary, data: channel.allocator.buffer(bytes: bytes))
        }
    }
}
