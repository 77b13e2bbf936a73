import Foundation
import XCTest
@testable import RecordKitService

/// The control socket checks its peer's uid itself (SO_PEERCRED), so even with its directory
/// and socket opened up to everyone, another user gets nothing but a refusal.
final class ControlServerTests: XCTestCase {
    func testOnlyTheServicesOwnUidIsAllowed() {
        XCTAssertTrue(PeerCredentials.isAllowed(peerUID: 1000, serviceUID: 1000))
        XCTAssertFalse(PeerCredentials.isAllowed(peerUID: 0, serviceUID: 1000), "not even root")
        XCTAssertFalse(PeerCredentials.isAllowed(peerUID: 1001, serviceUID: 1000))
        XCTAssertFalse(PeerCredentials.isAllowed(peerUID: nil, serviceUID: 1000), "unknown credentials are refused")
    }

    func testAPeerOfAnotherUidIsRefusedEvenWhenTheSocketIsWorldWritable() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to connect as another uid with setpriv") }
        let dir = NSTemporaryDirectory() + "rk-peercred-\(UUID().uuidString.prefix(6))"
        let paths = ServicePaths(environment: ["XDG_RUNTIME_DIR": dir, "XDG_STATE_HOME": dir + "/state", "HOME": dir])
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = ControlServer(paths: paths) { request, _ in
            var r = ControlResult()
            r.pid = getpid()
            return .success(request.id, r)
        }
        try server.bind()
        defer { server.stop() }
        Thread.detachNewThread { server.serve() }
        // Open everything up: only the uid check stands between the peer and the service now.
        chmod(dir, 0o755)
        chmod(paths.runtimeDirectory, 0o755)
        chmod(paths.socketPath, 0o666)

        let script = "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.settimeout(10)\ns.connect(sys.argv[1])\ns.sendall(b'{\"v\":1,\"cmd\":\"hello\"}\\n')\nprint(s.makefile().readline().strip())"
        let other = try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, paths.socketPath])
        XCTAssertTrue(other.contains("permission_denied"), "another uid is refused: \(other)")
        let own = try run("/usr/bin/python3", ["-c", script, paths.socketPath])
        XCTAssertTrue(own.contains("\"ok\":true"), "the owner is served: \(own)")
    }

    private func run(_ exe: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
