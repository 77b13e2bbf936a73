/// One WebSocket message, whole (fragments already put together, text checked as UTF-8).
package enum WebSocketMessage: Sendable, Equatable {
    /// A text message (opcode 1).
    case text(String)
    /// A binary message (opcode 2).
    case binary([UInt8])
}
