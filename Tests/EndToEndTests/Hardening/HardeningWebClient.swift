import Foundation
import Glibc

/// A raw TCP client of a loopback web surface for the hardening drills: it sends exactly the
/// bytes given (malformed, oversized, trickled), reads with a deadline, and speaks just enough
/// WebSocket (masked frames, any header) to send what no browser would.
final class HardeningWebClient {
    let fd: Int32
    let port: Int

    init(port: Int, receiveBuffer: Int32? = nil) throws {
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw RigError(description: "connect 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    /// Sends everything (blocking, at most `timeout` seconds); false once the server closed or
    /// stopped reading.
    @discardableResult
    func send(_ bytes: [UInt8], timeout: Double = 10) -> Bool {
        var offset = 0
        let deadline = Date().addingTimeInterval(timeout)
        while offset < bytes.count, Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&p, 1, 200) > 0 else { continue }
            if p.revents & Int16(POLLERR | POLLHUP) != 0 { return false }
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent < 0, errno == EAGAIN { continue }
            if sent <= 0 { return false }
            offset += sent
        }
        return offset == bytes.count
    }

    @discardableResult
    func send(_ text: String, timeout: Double = 10) -> Bool { send(Array(text.utf8), timeout: timeout) }

    /// Reads until the server closes, `enough` holds, or `timeout` seconds pass.
    func read(timeout: Double, until enough: ([UInt8]) -> Bool = { _ in false }) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return (received, true) }
            received += chunk[..<n]
            if enough(received) { return (received, false) }
        }
        return (received, false)
    }

    /// The status code of the response the server sends (nil: none within `timeout`).
    func status(timeout: Double = 10) -> Int? {
        let (bytes, _) = read(timeout: timeout) { $0.count >= 12 }
        let text = String(decoding: bytes.prefix(12), as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }

    /// A complete request for `target` with the right Host and `extra` header lines.
    @discardableResult
    func request(_ target: String, method: String = "GET", extra: [String] = [], body: String = "") -> Bool {
        let headers = (["Host: 127.0.0.1:\(port)"] + extra + (body.isEmpty ? [] : ["Content-Length: \(body.utf8.count)"]))
        return send("\(method) \(target) HTTP/1.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n" + body)
    }

    /// Upgrades to a WebSocket at `target`; the status of the answer (101 on success).
    func upgrade(_ target: String, extra: [String] = []) -> Int? {
        request(target, extra: ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                                "Sec-WebSocket-Version: 13"] + extra)
        let (bytes, _) = read(timeout: 10) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        let text = String(decoding: bytes, as: UTF8.self)
        return text.hasPrefix("HTTP/1.1 ") ? Int(text.dropFirst(9).prefix(3)) : nil
    }

    /// A client frame (masked unless told otherwise), any length.
    static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let mask: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            bytes.append(mask | UInt8(payload.count))
        } else if payload.count < 65_536 {
            bytes += [mask | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(mask | 127)
            bytes += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        guard masked else { return bytes + payload }
        let key: [UInt8] = [9, 8, 7, 6]
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    /// The close code in the server's frames received within `timeout` (nil: none).
    func closeCode(timeout: Double = 10) -> Int? {
        var code: Int?
        _ = read(timeout: timeout) { bytes in
            var index = 0
            while index + 2 <= bytes.count {
                let opcode = bytes[index] & 0x0F
                var length = Int(bytes[index + 1] & 0x7F), start = index + 2
                if length == 126 {
                    guard start + 2 <= bytes.count else { return false }
                    length = Int(bytes[start]) << 8 | Int(bytes[start + 1]); start += 2
                } else if length == 127 {
                    guard start + 8 <= bytes.count else { return false }
                    length = bytes[start..<(start + 8)].reduce(0) { $0 << 8 | Int($1) }; start += 8
                }
                guard start + length <= bytes.count else { return false }
                if opcode == 8, length >= 2 { code = Int(bytes[start]) << 8 | Int(bytes[start + 1]); return true }
                index = start + length
            }
            return false
        }
        return code
    }
}

/// What the drills read of a process from /proc: CPU seconds, resident memory, open descriptors.
enum ProcessGauge {
    /// User + system CPU seconds `pid` used so far.
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, utime 14, stime 15 (1-based) → indices 11 and 12 here.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident memory of `pid` in MiB.
    static func residentMiB(_ pid: Int32) -> Double {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kib / 1024
    }

    /// Open file descriptors of `pid`.
    static func descriptors(_ pid: Int32) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }
}
