/// The message types of obs-websocket 5 (`WebSocketOpCode`).
package enum OBSOpCode: Int64, Sendable {
    case hello = 0
    case identify = 1
    case identified = 2
    case reidentify = 3
    case event = 5
    case request = 6
    case requestResponse = 7
    case requestBatch = 8
    case requestBatchResponse = 9
}
