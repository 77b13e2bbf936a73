import Foundation

/// A blocking TCP client on 127.0.0.1 for the tests: it sends exactly the bytes given (malformed
/// on purpose, if need be) and reads with a deadline, so no test can hang.
final class RawClient {
    let fd: Int32

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw NSError(domain: "RawClient", code: Int(errno))
        }
    }

    deinit { close(fd) }

    /// Sends `bytes`; false once the server closed.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads until the server closes, `enough` says so, or `timeout` seconds pass.
    func read(timeout: Double = 5, until enough: ([UInt8]) -> Bool = { _ in false }) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&poller, 1, left) > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (received, true) }
            received.append(contentsOf: buffer[0..<count])
            if enough(received) { return (received, false) }
        }
        return (received, false)
    }

    /// One HTTP response: the status code, headers (lower-case names) and body, read until its
    /// Content-Length is complete or the server closes.
    func response(timeout: Double = 5) -> (status: Int, headers: [String: String], body: [UInt8], closed: Bool)? {
        var parsed: (Int, [String: String], Int)?
        let (bytes, closed) = read(timeout: timeout) { bytes in
            guard let end = Self.headEnd(bytes) else { return false }
            if parsed == nil { parsed = Self.parseHead(bytes[..<end]).map { ($0.0, $0.1, end + 4) } }
            guard let (_, headers, start) = parsed else { return true }
            return bytes.count >= start + (Int(headers["content-length"] ?? "0") ?? 0)
        }
        guard let end = Self.headEnd(bytes), let (status, headers) = Self.parseHead(bytes[..<end]) else { return nil }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let body = Array(bytes[(end + 4)...].prefix(length))
        return (status, headers, body, closed)
    }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    static func parseHead(_ bytes: ArraySlice<UInt8>) -> (Int, [String: String])? {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        guard let first = lines.first, first.hasPrefix("HTTP/1.1 "), let status = Int(first.dropFirst(9).prefix(3)) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers)
    }
}
