import Glibc
import RecordKitExtensionSDK

/// The host's end of an extension's socket, in protocol messages: it sends ``HostMessage``s and
/// receives ``ExtensionMessage``s. Anything else the extension sends — a datagram that is not a
/// valid message, or one with a descriptor attached (extensions send none) — is
/// ``WireError/malformed(_:)``.
final class ExtensionChannel {
    private let socket: PacketSocket

    /// Wraps the host's end of the socket pair.
    init(fd: Int32) { socket = PacketSocket(fd: fd) }

    /// Sends `message`, with `descriptor` attached when given.
    func send(_ message: HostMessage, attaching descriptor: Int32 = -1) throws(WireError) {
        try socket.send(message.jsonValue, attaching: descriptor)
    }

    /// The next message, waiting up to `timeoutMs`; nil on timeout.
    func receive(timeoutMs: Int) throws(WireError) -> ExtensionMessage? {
        guard let packet = try socket.receive(timeoutMs: timeoutMs) else { return nil }
        if let fd = packet.descriptor {
            Glibc.close(fd)
            throw WireError.malformed("a message with a descriptor attached; extensions send none")
        }
        let json = try packet.json()
        do throws(SchemaError) { return try ExtensionMessage(json: json) } catch {
            throw WireError.malformed("\(error) in \(PacketSocket.Packet.preview(packet.bytes))")
        }
    }

    /// Closes the host's end: the extension sees the end of the stream.
    func close() { socket.close() }
}
