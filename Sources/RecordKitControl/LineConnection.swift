import Foundation
import Glibc
import Synchronization

/// A Unix-socket connection that reads and writes newline-delimited messages, with a bound on
/// line length. Reads happen on one thread; writes may come from several (they are serialized).
package final class LineConnection: Sendable {
    /// What one read produced.
    package enum ReadResult: Sendable {
        /// A complete line, without its newline.
        case line([UInt8])
        /// A line longer than the bound; it was discarded up to its newline.
        case tooLarge
        /// The peer closed the connection (or a read error occurred).
        case closed
    }

    /// The socket descriptor (owned; closed by ``close()``).
    package let fd: Int32
    private let maxLine: Int
    private let buffer = Mutex<[UInt8]>([])
    private let writeLock = Mutex<Bool>(false)  // true once closed
    /// True once the descriptor is closed: ``abort()`` must then not touch its number, which
    /// the next accepted connection may already have (an `events` subscriber whose peer left
    /// aborted its stale descriptor and shut a `start` request's connection before its reply).
    /// Held only around `shutdown` and `close`, never during a write (abort must not wait for one).
    private let descriptorClosed = Mutex<Bool>(false)

    /// Whether every line written is passed through ``SecretRedactor`` (the service's side:
    /// no reply, status or event ever carries a stream key).
    package let redactsSecrets: Bool

    /// Wraps a connected socket.
    package init(fd: Int32, maxLine: Int = ControlProtocol.maxLineBytes, redactsSecrets: Bool = false) {
        self.fd = fd
        self.maxLine = maxLine
        self.redactsSecrets = redactsSecrets
    }

    /// Reads the next line (blocking).
    package func readLine() -> ReadResult {
        var discarding = false
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let found: ReadResult? = buffer.withLock { buf in
                if let nl = buf.firstIndex(of: 0x0A) {
                    let line = Array(buf[..<nl])
                    buf.removeSubrange(...nl)
                    return discarding || line.count > maxLine ? .tooLarge : .line(line)
                }
                if buf.count > maxLine { buf.removeAll(keepingCapacity: true); discarding = true }
                return nil
            }
            if let found { return found }
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return .closed }
            buffer.withLock { $0.append(contentsOf: chunk[0..<n]) }
        }
    }

    /// Writes `bytes` plus a newline; false when the peer is gone.
    @discardableResult
    package func writeLine(_ bytes: [UInt8]) -> Bool {
        writeLock.withLock { closed in
            if closed { return false }
            var data = bytes
            data.append(0x0A)
            var off = 0
            while off < data.count {
                let n = data.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                off += n
            }
            return true
        }
    }

    /// Encodes `value` as one JSON line.
    @discardableResult
    package func send<T: Encodable>(_ value: T) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return false }
        if redactsSecrets { return writeLine(Array(SecretRedactor.redact(String(decoding: data, as: UTF8.self)).utf8)) }
        return writeLine(Array(data))
    }

    /// Shuts the socket down without waiting for a write in progress (which then fails at
    /// once); ``close()`` still releases the descriptor. For a peer that stopped reading.
    package func abort() {
        descriptorClosed.withLock { closed in
            if !closed { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// After a last reply: stops writing and discards what the peer still sends, for at most
    /// `seconds` or 64 KiB, so that closing does not reset the connection before the peer has
    /// read that reply (a socket closed with unread data sends RST). Nothing read is looked at.
    package func lingerAfterRefusal(seconds: Double = 1) {
        shutdown(fd, Int32(SHUT_WR))
        var chunk = [UInt8](repeating: 0, count: 4096)
        var total = 0
        var waited = 0.0
        while total < 65_536, waited < seconds {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, 100)
            if ready == 0 { waited += 0.1; continue }
            if ready < 0 && errno == EINTR { continue }
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            total += n
        }
    }

    /// Shuts the socket down and closes it; idempotent.
    package func close() {
        writeLock.withLock { closed in
            if closed { return }
            closed = true
            descriptorClosed.withLock { descriptorClosed in
                descriptorClosed = true
                shutdown(fd, Int32(SHUT_RDWR))
                Glibc.close(fd)
            }
        }
    }
}
