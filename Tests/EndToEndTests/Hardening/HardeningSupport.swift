import Foundation
import Synchronization
import Glibc
import XCTest

/// A raw client of the control socket for the hardening tests: writes any bytes, reads reply
/// lines with a deadline. Not `recordctl`: it sends what no well-behaved client would.
final class RawControlSocket {
    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `path`; throws when nothing listens.
    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw RigError(description: "socket: \(String(cString: strerror(errno)))") }
        var addr = unixAddress(path)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw RigError(description: "connect \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    /// Writes `bytes` completely; false when the peer is gone.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            off += n
        }
        return true
    }

    /// The next line, or nil when none arrives within `timeout` seconds or the peer closed.
    func readLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            buffer += chunk[..<n]
        }
    }
}

/// A Unix socket that accepts connections and never answers: an X server that is stopped, or
/// a socket planted by someone else. Counts the bytes it received.
final class SilentListener: @unchecked Sendable {
    let fd: Int32
    private let lock = NSLock()
    private var received = 0
    private var accepted: [Int32] = []
    private var running = true

    /// Listens on `path` (a leading NUL: the abstract namespace).
    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var addr = unixAddress(path)
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.utf8.count + (path.hasPrefix("\0") ? 0 : 1))
        let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard rc == 0, listen(fd, 64) == 0 else {
            Glibc.close(fd)
            throw RigError(description: "cannot listen on \(path.replacingOccurrences(of: "\0", with: "@")): \(String(cString: strerror(errno)))")
        }
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Bytes received from every client so far.
    var bytesReceived: Int { lock.withLock { received } }

    /// Stops accepting and closes every connection.
    func close() {
        lock.withLock { running = false }
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
        lock.withLock { accepted.forEach { Glibc.close($0) }; accepted = [] }
    }

    private func acceptLoop() {
        while lock.withLock({ running }) {
            let c = accept(fd, nil, nil)
            if c < 0 { return }
            lock.withLock { accepted.append(c) }
            Thread.detachNewThread { [self] in
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = chunk.withUnsafeMutableBytes { recv(c, $0.baseAddress, $0.count, 0) }
                    if n <= 0 { return }
                    lock.withLock { received += n }
                }
            }
        }
    }
}

func unixAddress(_ path: String) -> sockaddr_un {
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.prefix(raw.count - 1).enumerated() { raw[i] = b } }
    return addr
}

/// An X server of the test's own (Xvfb), to stop or kill without touching the rig's.
final class PrivateXServer {
    let display: String
    let process: RunningProcess

    /// Display numbers this test process used already: a number is never reused, so a client
    /// that still knows a stopped server (a cached connection, its abstract socket) cannot
    /// reach the new one by mistake.
    private static let used = Mutex<Set<Int>>([])

    /// Starts `Xvfb :N` on a free display number from 150 up and waits until it answers.
    /// `-noreset`: without it Xvfb resets when its last client (the readiness probe) leaves, and
    /// a client connecting during that reset is refused.
    init(rig: Rig) throws {
        var chosen: Int?
        for n in 150..<200 where !Self.used.withLock({ $0.contains(n) })
            && !FileManager.default.fileExists(atPath: "/tmp/.X\(n)-lock")
            && !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(n)") {
            chosen = n
            break
        }
        if let chosen { Self.used.withLock { _ = $0.insert(chosen) } }
        guard let n = chosen else { throw RigError(description: "no free X display number in 150..199") }
        display = ":\(n)"
        process = try RunningProcess("Xvfb", [display, "-screen", "0", "640x480x24", "-nolisten", "tcp", "+extension", "MIT-SHM", "-noreset"],
                                     environment: rig.environment)
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let r = try? ProcessRunner.run("xdpyinfo", ["-display", display], environment: rig.environment, timeout: 5), r.exitCode == 0 { return }
            usleep(100_000)
        }
        process.terminate()
        throw RigError(description: "Xvfb \(display) did not come up")
    }

    var pid: Int32 { process.pid }

    /// Kills the server (SIGCONT first, in case it was stopped).
    func stop() {
        kill(process.pid, SIGCONT)
        process.terminate(grace: 2)
        _ = process.wait(timeout: 5, grace: 1)
    }
}

extension ServiceHarness {
    /// The `recordd` binary beside `recordctl`.
    var recorddPath: String { (recordctl as NSString).deletingLastPathComponent + "/recordd" }

    /// The service log's text.
    var log: String { (try? String(contentsOfFile: stateDir + "/recordkit/recordd.log", encoding: .utf8)) ?? "" }
}

/// A PulseAudio server of the test's own (one null sink, its monitor as the default source), to
/// kill without touching the rig's. Started as scripts/rig.sh starts the rig's (a scrubbed
/// environment: as root, PulseAudio would otherwise try D-Bus).
final class PrivatePulseServer {
    let socketPath: String
    let process: RunningProcess

    init(rig: Rig, directory: String) throws {
        socketPath = directory + "/pulse.sock"
        for sub in ["home", "runtime", "config"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + sub, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let env = ["PATH": rig.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory + "/home", "XDG_RUNTIME_DIR": directory + "/runtime",
                   "XDG_CONFIG_HOME": directory + "/config", "DBUS_SESSION_BUS_ADDRESS": "disabled:"]
        process = try RunningProcess("pulseaudio", ["-n", "--daemonize=no", "--system=no", "--use-pid-file=no", "--exit-idle-time=-1",
                                                    "--realtime=no", "--high-priority=no", "--log-target=stderr",
                                                    "-L", "module-native-protocol-unix auth-anonymous=1 socket=\(socketPath)",
                                                    "-L", "module-null-sink sink_name=p_sink rate=48000 channels=2",
                                                    "-L", "module-always-sink"], environment: env)
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let r = try? ProcessRunner.run("pactl", ["--server", "unix:" + socketPath, "info"], environment: env, timeout: 5), r.exitCode == 0 {
                _ = try? ProcessRunner.run("pactl", ["--server", "unix:" + socketPath, "set-default-source", "p_sink.monitor"], environment: env, timeout: 5)
                return
            }
            usleep(100_000)
        }
        process.terminate()
        throw RigError(description: "the private pulseaudio on \(socketPath) did not come up")
    }

    var pid: Int32 { process.pid }

    /// Kills the server at once (no clean disconnect for its clients).
    func kill9() { kill(process.pid, SIGKILL); _ = process.wait(timeout: 5, grace: 1) }
}

extension RawControlSocket {
    /// Sends one request line.
    func send(_ json: String) { write(Array((json + "\n").utf8)) }

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
