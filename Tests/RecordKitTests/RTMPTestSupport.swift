import Foundation
import Glibc
import MediaTestSupport
import XCTest

/// The rig's RTMP server (nginx-rtmp, scripts/rig.sh) as the in-process RTMP tests use it.
struct RTMPTestServer {
    /// `rtmp://127.0.0.1:19350/live`: publishing needs a key that starts with `testkey`.
    let url: String
    /// Where nginx's `record all` writes `<key>-<unix time>.flv`, one file per publish.
    let recordDirectory: String

    /// The rig's server; fails (never skips) without the rig environment.
    static func require() throws -> RTMPTestServer {
        let env = ProcessInfo.processInfo.environment
        guard let url = env["RK_RTMP_URL"], !url.isEmpty, let dir = env["RK_RTMP_REC_DIR"], !dir.isEmpty,
              env["DISPLAY"] != nil, env["PULSE_SERVER"] != nil else {
            throw RTMPTestError("the RTMP tests need the rig (RK_RTMP_URL, RK_RTMP_REC_DIR, DISPLAY, PULSE_SERVER): "
                + "run scripts/test.sh, or scripts/rig.sh start && source rig-run/env")
        }
        return RTMPTestServer(url: url, recordDirectory: dir)
    }

    /// A key the server accepts and no other test uses: `testkey-<label>-<random>`.
    func newKey(_ label: String) -> String { "testkey-\(label)-\(UUID().uuidString.prefix(8).lowercased())" }

    /// The server's recordings of `key`, oldest first (nginx names them `<key>-<unix time>.flv`).
    func recordings(of key: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: recordDirectory)) ?? []
        return names.filter { $0.hasPrefix(key + "-") && $0.hasSuffix(".flv") }
            .sorted { seconds(in: $0, key: key) < seconds(in: $1, key: key) }
            .map { recordDirectory + "/" + $0 }
    }

    /// Waits (bounded) until nginx has `count` recordings of `key` and closed them (their size
    /// stops changing), and returns them.
    func waitForRecordings(of key: String, count: Int, timeout: Double = 10) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var lastSizes: [Int] = []
        while Date() < deadline {
            let files = recordings(of: key)
            let sizes = files.map { ((try? FileManager.default.attributesOfItem(atPath: $0))?[.size] as? Int) ?? 0 }
            if files.count >= count, sizes == lastSizes { return files }
            lastSizes = sizes
            usleep(300_000)
        }
        return recordings(of: key)
    }

    /// Removes the recordings of `key`.
    func removeRecordings(of key: String) {
        for file in recordings(of: key) { try? FileManager.default.removeItem(atPath: file) }
    }

    /// `scripts/rig.sh nginx-stop` or `nginx-start` (bounded).
    ///
    /// Not through Foundation's `Process`: on Linux its `waitUntilExit` only returns once every
    /// descendant closed what it inherited, and `nginx-start` leaves nginx running.
    func nginx(_ command: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/rig.sh").path
        let log = NSTemporaryDirectory() + "/rk-rig-\(UUID().uuidString.prefix(8)).log"
        defer { unlink(log) }
        // The shell closes every descriptor this process lets children inherit, so nginx holds none.
        let closeInherited = "for fd in $(ls /proc/$$/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done 2>/dev/null; exec /bin/bash \"$0\" \"$@\""
        let code = try spawnAndWait(["/bin/bash", "-c", closeInherited, script, command], output: log, timeout: 60)
        if code != 0 {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw RTMPTestError("rig.sh \(command) failed (\(code)): \(text)")
        }
    }

    /// Runs `arguments` with stdin from /dev/null and stdout and stderr into `output`; returns
    /// its exit status (SIGKILL after `timeout` seconds: -1).
    private func spawnAndWait(_ arguments: [String], output: String, timeout: Double) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard spawned == 0 else { throw RTMPTestError("posix_spawn \(arguments[0]): \(String(cString: strerror(spawned)))") }
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                return -1
            }
            usleep(20_000)
        }
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
    }

    private func seconds(in name: String, key: String) -> Int {
        Int(name.dropFirst(key.count + 1).dropLast(4)) ?? 0
    }
}

struct RTMPTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One packet as ffprobe lists it.
struct ProbedPacket {
    var stream: Int
    var pts: Double
    var dts: Double
    var isKey: Bool
}

enum PacketProbe {
    /// Every packet of `path` in file order.
    static func packets(_ path: String) throws -> [ProbedPacket] {
        let (code, data, stderr) = try MediaProbe.run("/usr/bin/ffprobe", [
            "-v", "error", "-show_entries", "packet=stream_index,pts_time,dts_time,flags", "-of", "csv=p=0", path])
        guard code == 0 else { throw RTMPTestError("ffprobe \(path): \(stderr)") }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count >= 4, let s = Int(f[0]), let pts = Double(f[1]), let dts = Double(f[2]) else { return nil }
            return ProbedPacket(stream: s, pts: pts, dts: dts, isKey: f[3].contains("K"))
        }
    }
}

/// A TCP listener on 127.0.0.1 that accepts connections into its backlog and never answers:
/// an RTMP server that hangs in the handshake.
final class SilentTCPServer {
    let port: Int
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RTMPTestError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            close(fd)
            throw RTMPTestError("bind/listen: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}
