import Foundation

/// Turns frames into ``OBSValue``s and back, for one encoding. A frame of the other kind (binary
/// on JSON, text on MessagePack) or bytes that do not decode are ``OBSCloseCode/messageDecodeError``.
package enum OBSCodec {
    /// Decodes `frame`; throws the close the protocol prescribes.
    package static func decode(_ frame: OBSFrame, as encoding: OBSEncoding) throws(OBSClose) -> OBSValue {
        switch (frame, encoding) {
        case (.text(let text), .json):
            do { return try JSONDecoder().decode(OBSValue.self, from: Data(text.utf8)) } catch {
                throw OBSClose(.messageDecodeError, "the message is not JSON")
            }
        case (.binary(let bytes), .msgpack):
            do throws(MessagePack.DecodeError) { return try MessagePack.decode(bytes) } catch {
                throw OBSClose(.messageDecodeError, "the message is not MessagePack: \(error.description)")
            }
        case (.binary, .json):
            throw OBSClose(.messageDecodeError, "a binary frame on the obswebsocket.json subprotocol")
        case (.text, .msgpack):
            throw OBSClose(.messageDecodeError, "a text frame on the obswebsocket.msgpack subprotocol")
        }
    }

    /// Encodes `value` as a frame of `encoding`.
    package static func encode(_ value: OBSValue, as encoding: OBSEncoding) -> OBSFrame {
        switch encoding {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
            return .text(String(decoding: data, as: UTF8.self))
        case .msgpack:
            return .binary(MessagePack.encode(value))
        }
    }
}
