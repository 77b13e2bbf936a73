import Foundation
import XCTest

/// The headless Wayland session of scripts/wayland-rig.sh (sway, PipeWire, WirePlumber, the
/// ScreenCast portal), started once per test process. Its programs run as the rig's user
/// `rkwayland`: sway refuses root and that user's session bus refuses root clients, so the
/// recorder under test runs as that user too (``command(_:_:)``).
final class WaylandRig: @unchecked Sendable {
    /// The rig's environment file: the session's variables (XDG_RUNTIME_DIR, WAYLAND_DISPLAY,
    /// DBUS_SESSION_BUS_ADDRESS, ...) and RK_WAYLAND_DIR/UID/GID.
    let values: [String: String]
    let script: String
    let rigDir: String

    var uid: String { values["RK_WAYLAND_UID"] ?? "" }
    var gid: String { values["RK_WAYLAND_GID"] ?? "" }
    var directory: String { values["RK_WAYLAND_DIR"] ?? "" }

    private init(values: [String: String], script: String, rigDir: String) {
        self.values = values
        self.script = script
        self.rigDir = rigDir
    }

    /// Starts the rig (idempotent; a first start on a fresh machine installs packages and builds
    /// the portal backend) and reads its environment.
    static func require() throws -> WaylandRig { try shared.get() }

    private static let shared: Result<WaylandRig, ProcessRunnerError> = Result { try WaylandRig.start() }.mapError {
        ($0 as? ProcessRunnerError) ?? ProcessRunnerError(description: "\($0)")
    }

    private static func start() throws -> WaylandRig {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
        let script = root + "/scripts/wayland-rig.sh"
        var environment = ProcessInfo.processInfo.environment
        let rigDir = environment["RK_RIG_DIR"] ?? root + "/rig-run"
        environment["RK_RIG_DIR"] = rigDir
        let started = try ProcessRunner.run("bash", [script, "start"], environment: environment, timeout: 900)
        guard started.exitCode == 0 else { throw ProcessRunnerError(description: "scripts/wayland-rig.sh start failed: \(started)") }
        let text = try String(contentsOfFile: rigDir + "/wayland.env", encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            values[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return WaylandRig(values: values, script: script, rigDir: rigDir)
    }

    /// Runs a rig command (`bg '#RRGGBB'`, `portal-output NAME`, `stop-portal-backend`, `start`).
    func rig(_ arguments: [String]) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["RK_RIG_DIR"] = rigDir
        let result = try ProcessRunner.run("bash", [script] + arguments, environment: environment, timeout: 300)
        guard result.exitCode == 0 else { throw ProcessRunnerError(description: "wayland-rig.sh \(arguments.joined(separator: " ")): \(result)") }
    }

    /// Waits until the portal backend's last screen cast has left PipeWire (up to 15 s). A
    /// recording of a still screen that starts while the last one's session is still closing
    /// joins that cast and gets no first picture until the screen changes (docs/WAYLAND.md, "No
    /// first frame"; a CI run's camera test recorded nothing so): tests that record the still
    /// screen one recording after another call this first.
    func waitForLastCastToEnd() throws {
        try rig(["casts-ended"])
    }

    /// Moving content in the session: `weston-presentation-shm`, a window that redraws at the
    /// output's refresh, given a second to appear. The caller stops it (`wait(timeout:grace:)`).
    func startMotion() throws -> RunningProcess {
        let (exe, argv) = command("weston-presentation-shm", [])
        let motion = try RunningProcess(exe, argv)
        Thread.sleep(forTimeInterval: 1)
        return motion
    }

    /// `executable arguments` as the rig's user inside the session, with only the session's
    /// environment (no DISPLAY: a Wayland session without X) plus `extra`.
    func command(_ executable: String, _ arguments: [String], extra: [String: String] = [:]) -> (String, [String]) {
        let session = values.filter { !$0.key.hasPrefix("RK_WAYLAND_") }.merging(extra) { _, new in new }
        let env = session.map { "\($0.key)=\($0.value)" }.sorted()
        return ("setpriv", ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "env", "-i"] + env + [executable] + arguments)
    }

    /// A fresh directory the rig's user may write, removed by `cleanup` at teardown.
    func workDirectory(_ name: String) throws -> String {
        let dir = directory + "/e2e/" + name.filter { $0.isLetter || $0.isNumber } + "-" + UUID().uuidString.prefix(6)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = try ProcessRunner.run("chown", ["-R", "\(uid):\(gid)", directory + "/e2e"], timeout: 30)
        return dir
    }

    /// `path` if the rig's user can run it, else a copy of it (and of its siblings `also`) in
    /// the rig's directory (a checkout under /root is out of that user's reach).
    func reachable(_ path: String, also: [String] = []) throws -> String {
        let check = try ProcessRunner.run("setpriv", ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "test", "-x", path], timeout: 10)
        if check.exitCode == 0 { return path }
        let bin = directory + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let source = URL(fileURLWithPath: path).deletingLastPathComponent()
        for name in [URL(fileURLWithPath: path).lastPathComponent] + also {
            _ = try ProcessRunner.run("install", ["-m", "0755", source.appendingPathComponent(name).path, bin + "/" + name], timeout: 60)
        }
        return bin + "/" + URL(fileURLWithPath: path).lastPathComponent
    }
}
