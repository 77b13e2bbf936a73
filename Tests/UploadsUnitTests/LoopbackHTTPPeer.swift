import Foundation
import Glibc

/// A loopback HTTP/1.1 peer for ``HTTPTransportTests``, written on sockets so that the test sees
/// the request exactly as it arrived (chunked or not, which headers): it takes one connection at
/// a time, reads one request (head and `Content-Length` body), records it, answers with
/// `response` (or never, when `response` is nil) and closes the connection.
final class LoopbackHTTPPeer: @unchecked Sendable {
    /// One request as it arrived.
    struct Request {
        var head: String
        var body: [UInt8]
        /// The value of header `name` (case-insensitive), if the head has it.
        func header(_ name: String) -> String? {
            for line in head.components(separatedBy: "\r\n").dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                if line[..<colon].caseInsensitiveCompare(name) == .orderedSame {
                    return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    let port: Int
    private let listener: Int32
    private let response: String?
    private let lock = NSLock()
    private var received: [Request] = []
    private var open: [Int32] = []

    /// A peer on 127.0.0.1 at a free port answering every request with `response` (a whole
    /// HTTP response; nil: never answer).
    init(response: String?) throws {
        self.response = response
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound, listen(listener, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in serve() }
    }

    /// The requests received so far.
    var requests: [Request] { lock.withLock { received } }

    /// Stops listening and closes every connection still open.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        lock.withLock { open.forEach { close($0) } }
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var data = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 65536)
            var request: Request?
            while request == nil {
                let n = read(connection, &buffer, buffer.count)
                guard n > 0 else { break }
                data += buffer[..<n]
                request = Self.parse(data)
            }
            guard let request else { close(connection); continue }
            lock.withLock { received.append(request) }
            if let response {
                _ = response.utf8CString.withUnsafeBufferPointer { write(connection, $0.baseAddress, $0.count - 1) }
                close(connection)
            } else {
                lock.withLock { open.append(connection) }
            }
        }
    }

    /// A whole request in `data`, or nil while it is incomplete.
    private static func parse(_ data: [UInt8]) -> Request? {
        guard let end = data.firstRange(of: Array("\r\n\r\n".utf8))?.lowerBound else { return nil }
        let head = String(decoding: data[..<end], as: UTF8.self)
        var request = Request(head: head, body: [])
        let length = Int(request.header("Content-Length") ?? "0") ?? 0
        guard data.count - (end + 4) >= length else { return nil }
        request.body = Array(data[(end + 4)..<(end + 4 + length)])
        return request
    }
}
