import Foundation
import Glibc

/// A raw client of the service's control socket, for tests that must misbehave as a client
/// (never read, flood requests) or time single requests without `recordctl`'s start-up cost.
final class ControlSocket {
    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `path`; throws when nothing listens there.
    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes + [0])
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw NSError(domain: "ControlSocket", code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "connect \(path): \(String(cString: strerror(errno)))"])
        }
    }

    deinit { close(fd) }

    /// Sends one request line.
    func send(_ json: String) {
        let line = Array((json + "\n").utf8)
        var off = 0
        while off < line.count {
            let n = line.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    /// The next line, or nil at end of stream or after `timeout` seconds.
    func readLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(min(remaining, 1) * 1000)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// Sends a request and waits for the reply with `id` (skipping events); returns it as JSON
    /// and how long it took, in seconds.
    func request(_ cmd: String, id: String, timeout: Double = 10) -> (reply: [String: Any]?, seconds: Double) {
        let start = Date()
        send("{\"v\":1,\"id\":\"\(id)\",\"cmd\":\"\(cmd)\"}")
        while let line = readLine(timeout: timeout - Date().timeIntervalSince(start)) {
            if let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], object["id"] as? String == id {
                return (object, Date().timeIntervalSince(start))
            }
        }
        return (nil, Date().timeIntervalSince(start))
    }
}
