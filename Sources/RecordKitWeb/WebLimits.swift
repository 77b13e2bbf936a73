/// The bounds every loopback web surface keeps, whatever a client sends (docs/WEB.md).
/// A request over a limit is answered (431, 413, 408, 503) and its connection closed; it is
/// never held, and parsing it never costs more than linear time in the bytes allowed here.
package struct WebLimits: Sendable {
    /// The most bytes of the request line plus all header lines (the parser stops at the first
    /// byte over it: 431).
    package var maxHeadBytes = 16 * 1024
    /// The most header fields in one request (431).
    package var maxHeaderCount = 64
    /// The most bytes of a request body (413).
    package var maxBodyBytes = 64 * 1024
    /// Seconds a whole request (head and body) may take to arrive, counted from the connection's
    /// start or the end of the previous response (408). Keep-alive connections idle this long
    /// are answered 408 and closed too.
    package var headerTimeout: Double = 10
    /// Seconds a connection may go without reading or writing anything while it waits on us or
    /// on the client (a response the client stopped reading; a WebSocket without even a pong):
    /// then it is closed.
    package var idleTimeout: Double = 60
    /// The most open connections from one client address (503 to the next).
    package var maxConnectionsPerClient = 64
    /// The most open connections in all (503 to the next): what bounds the service's file
    /// descriptors, since on loopback every local user is 127.0.0.1.
    package var maxConnections = 128
    /// The largest WebSocket frame a client may send (close 1009).
    package var maxWebSocketFrameBytes = 1 << 20
    /// The largest WebSocket message, fragments put together (close 1009).
    package var maxWebSocketMessageBytes = 4 << 20
    /// Messages received and not yet taken from ``WebSocketConnection/messages`` before the
    /// connection is closed with 1008 (a consumer that stopped reading).
    package var maxQueuedWebSocketMessages = 256
    /// Bytes handed to ``WebSocketConnection/enqueue(_:)`` and not yet written before the
    /// connection is closed with 1008 (a client that stopped reading).
    package var maxPendingWebSocketBytes = 16 << 20

    /// The defaults above.
    package init() {}
}
