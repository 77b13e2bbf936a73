import CShims
import Glibc
import RecordKitSupport

/// One end of the extension protocol's `SOCK_SEQPACKET` Unix socket: every send is one whole
/// message (at most ``ExtensionProtocol/maxMessageBytes``), optionally carrying one descriptor.
///
/// Sending is safe from any thread (each message is one `sendmsg`). Receiving is for one thread
/// at a time. Never raises `SIGPIPE`. Closing is explicit (``close()``), not on deinit, because
/// the descriptor may be shared with a spawned process.
package final class PacketSocket: @unchecked Sendable {
    /// The socket descriptor.
    package let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: ExtensionProtocol.maxMessageBytes + 1)  // receiving thread only

    /// One received message.
    package struct Packet {
        /// The message bytes.
        package var bytes: ArraySlice<UInt8>
        /// A descriptor that came with it (the receiver owns it), or nil.
        package var descriptor: Int32?
    }

    /// Wraps `fd`.
    package init(fd: Int32) { self.fd = fd }

    /// Sends `message` as JSON, with `descriptor` attached when given.
    package func send(_ message: JSONValue, attaching descriptor: Int32 = -1) throws(WireError) {
        var text = message.serialized
        guard text.utf8.count <= ExtensionProtocol.maxMessageBytes else {
            throw WireError.malformed("message of \(text.utf8.count) bytes exceeds \(ExtensionProtocol.maxMessageBytes)")
        }
        let n = text.withUTF8 { cshim_send_packet(fd, $0.baseAddress, $0.count, descriptor) }
        if n < 0 {
            let e = errno
            if e == EPIPE || e == ECONNRESET || e == ENOTCONN { throw WireError.closed }
            throw WireError.system("sendmsg: \(String(cString: strerror(e)))")
        }
    }

    /// Waits up to `timeoutMs` (forever when nil) for a message. Returns nil on timeout.
    /// Throws ``WireError/closed`` at end of stream and ``WireError/malformed(_:)`` for a
    /// message longer than the protocol allows.
    package func receive(timeoutMs: Int?) throws(WireError) -> Packet? {
        if let timeoutMs {
            guard try waitReadable(timeoutMs: timeoutMs) else { return nil }
        }
        var descriptor: Int32 = -1
        var truncated: Int32 = 0
        let n = buffer.withUnsafeMutableBytes { cshim_recv_packet(fd, $0.baseAddress, $0.count, &descriptor, &truncated) }
        if n < 0 {
            let e = errno
            if e == ECONNRESET { throw WireError.closed }
            throw WireError.system("recvmsg: \(String(cString: strerror(e)))")
        }
        if n == 0 {
            if descriptor >= 0 { Glibc.close(descriptor) }
            throw WireError.closed
        }
        if truncated != 0 || n > ExtensionProtocol.maxMessageBytes {
            if descriptor >= 0 { Glibc.close(descriptor) }
            throw WireError.malformed("a message longer than \(ExtensionProtocol.maxMessageBytes) bytes")
        }
        return Packet(bytes: buffer[0..<n], descriptor: descriptor >= 0 ? descriptor : nil)
    }

    /// Waits until a message (or end of stream) is ready; false on timeout.
    private func waitReadable(timeoutMs: Int) throws(WireError) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(timeoutMs, 0)) * 1_000_000
        while true {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let now = MonotonicClock.nanoseconds()
            let remaining = now >= deadline ? 0 : Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
            let rc = poll(&p, 1, remaining)
            if rc > 0 { return true }
            if rc == 0 { return false }
            if errno != EINTR { throw WireError.system("poll: \(String(cString: strerror(errno)))") }
        }
    }

    /// Closes the descriptor.
    package func close() { _ = Glibc.close(fd) }
}

extension PacketSocket.Packet {
    /// The message parsed as JSON. Throws ``WireError/malformed(_:)`` with the parse error and
    /// the first bytes of the message.
    package func json() throws(WireError) -> JSONValue {
        do throws(JSONParseError) {
            return try JSONParser.parse(bytes)
        } catch {
            throw WireError.malformed("\(error.message) at byte \(error.column) of \(Self.preview(bytes))")
        }
    }

    /// The first bytes of a message, printable.
    package static func preview(_ bytes: ArraySlice<UInt8>) -> String {
        let head = bytes.prefix(40).map { (0x20..<0x7F).contains($0) ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }
        return "\"" + head.joined() + (bytes.count > 40 ? "…" : "") + "\" (\(bytes.count) bytes)"
    }
}
