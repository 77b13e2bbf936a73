import Glibc
import RecordKitSupport

/// Asks an X server whether it answers, with a deadline, without Xlib: connects to the
/// display's socket (non-blocking) and sends the X11 connection setup; any reply (success,
/// failure or "authenticate") means the server is serving clients.
///
/// Xlib has no timeouts: `XOpenDisplay` on a server that accepts connections but never answers
/// (stopped, hung, a wedged proxy) blocks forever. ``XDisplayConnection`` asks this probe
/// first, and ``XServerWatchdog`` asks it periodically while a connection is open. Any thread.
enum XServerProbe {
    /// The outcome of one probe.
    enum Outcome: Equatable {
        /// The server answered within the deadline.
        case answered
        /// The socket does not exist or refused the connection: let Xlib say why.
        case unreachable
        /// Connected (or connecting) but no answer within the deadline.
        case silent
        /// The display name is not one this probe understands (Xlib may): no verdict.
        case unknown
    }

    /// Probes `displayName` (`:N`, `:N.S`, `unix:N`, `host:N`, `/path/to/socket[:N]`), waiting at
    /// most `timeoutMs` milliseconds in total.
    static func probe(_ displayName: String, timeoutMs: Int32) -> Outcome {
        guard let target = Target(displayName) else { return .unknown }
        let deadline = MonotonicClock.nanoseconds() + UInt64(timeoutMs) * 1_000_000
        var sawSilence = false
        for address in target.addresses {
            let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            let rc = address.bytes.withUnsafeBytes { connect(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count)) }
            // EAGAIN on a Unix socket: the listen backlog is full, the server has not accepted
            // anyone for a while.
            if rc != 0 && errno == EAGAIN { sawSilence = true; continue }
            if rc != 0 && errno != EINPROGRESS { continue }
            guard wait(fd, for: Int16(POLLOUT), until: deadline) else { sawSilence = true; continue }
            var soError: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
            if soError != 0 { continue }
            // xConnClientPrefix: byte order 'l', protocol 11.0, no authorization.
            let setup: [UInt8] = [0x6C, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0]
            let sent = setup.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent == setup.count else { continue }
            guard wait(fd, for: Int16(POLLIN), until: deadline) else { sawSilence = true; continue }
            var byte: UInt8 = 0
            if recv(fd, &byte, 1, 0) == 1 { return .answered }
        }
        return sawSilence ? .silent : .unreachable
    }

    private static func wait(_ fd: Int32, for events: Int16, until deadline: UInt64) -> Bool {
        while true {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { return false }
            var p = pollfd(fd: fd, events: events, revents: 0)
            let rc = poll(&p, 1, Int32(min((deadline - now) / 1_000_000 + 1, 60_000)))
            if rc > 0 { return true }
            if rc < 0 && errno == EINTR { continue }
            if rc == 0 { return false }
            return false
        }
    }

    /// Where a display name's server listens, as Xlib would try it.
    private struct Target {
        struct Address { var family: Int32; var bytes: [UInt8] }
        var addresses: [Address] = []

        init?(_ name: String) {
            var host = ""
            var numberText = ""
            if name.hasPrefix("/") {
                // A socket path, optionally followed by ":N" (XQuartz/launchd style).
                let path = name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? name
                addresses = [Self.unix(path, abstract: false)].compactMap { $0 }
                if addresses.isEmpty { return nil }
                return
            }
            guard let colon = name.lastIndex(of: ":") else { return nil }
            host = String(name[..<colon])
            numberText = String(name[name.index(after: colon)...].prefix(while: { $0 != "." }))
            guard let number = Int(numberText), (0...65_535 - 6000).contains(number) else { return nil }
            if host.hasSuffix(":") { return nil }  // DECnet (host::N)
            if host.hasPrefix("unix/") { host = String(host.dropFirst(5)) }
            if host.isEmpty || host == "unix" {
                let path = "/tmp/.X11-unix/X\(number)"
                addresses = [Self.unix(path, abstract: true), Self.unix(path, abstract: false)].compactMap { $0 }
            } else {
                if host.hasPrefix("tcp/") { host = String(host.dropFirst(4)) }
                addresses = Self.tcp(host, port: 6000 + number)
            }
            if addresses.isEmpty { return nil }
        }

        private static func unix(_ path: String, abstract: Bool) -> Address? {
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            let bytes = (abstract ? [0] : []) + Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { return nil }
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                for (i, b) in bytes.enumerated() { raw[i] = b }
            }
            let length = MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1)
            let all = withUnsafeBytes(of: &addr) { Array($0.prefix(length)) }
            return Address(family: AF_UNIX, bytes: all)
        }

        private static func tcp(_ host: String, port: Int) -> [Address] {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            hints.ai_flags = AI_NUMERICSERV
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return [] }
            defer { freeaddrinfo(first) }
            var result: [Address] = []
            var node: UnsafeMutablePointer<addrinfo>? = first
            while let n = node {
                if let a = n.pointee.ai_addr {
                    result.append(Address(family: n.pointee.ai_family,
                                          bytes: Array(UnsafeRawBufferPointer(start: a, count: Int(n.pointee.ai_addrlen)))))
                }
                node = n.pointee.ai_next
            }
            return result
        }
    }
}
