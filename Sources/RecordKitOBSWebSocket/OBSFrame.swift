/// One WebSocket message of an obs-websocket session, whole: text for `obswebsocket.json`,
/// binary for `obswebsocket.msgpack`.
package enum OBSFrame: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
}

/// The two encodings of obs-websocket, by their subprotocol names. A client that names none
/// speaks JSON.
package enum OBSEncoding: String, Sendable, CaseIterable {
    case json = "obswebsocket.json"
    case msgpack = "obswebsocket.msgpack"

    /// The encoding of the subprotocol the server agreed on (nil: JSON).
    package init(subprotocol: String?) {
        self = subprotocol == OBSEncoding.msgpack.rawValue ? .msgpack : .json
    }
}
