import Foundation
import XCTest

/// A private `recordd` for one test: its own runtime and state directories (so the socket,
/// sessions and log are the test's), driven through the real `recordctl` binary.
final class ServiceHarness: @unchecked Sendable {
    let rig: Rig
    let recordctl: String
    let runtimeDir: String
    let stateDir: String
    let environment: [String: String]

    /// `extraEnvironment` is added to the environment of `recordctl` and so of the `recordd` it starts.
    init(rig: Rig, workDir: String, extraEnvironment: [String: String] = [:]) throws {
        self.rig = rig
        recordctl = try rig.recordctlPath()
        // Unix socket paths are limited to 107 bytes: keep the runtime directory short.
        runtimeDir = "/tmp/rk-e2e-\(UUID().uuidString.prefix(8))"
        stateDir = workDir + "/xdg-state"
        try FileManager.default.createDirectory(atPath: runtimeDir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var changes: [String: String?] = ["XDG_RUNTIME_DIR": runtimeDir, "XDG_STATE_HOME": stateDir]
        for (name, value) in extraEnvironment { changes[name] = value }
        environment = rig.environment(changes)
    }

    /// The session directories of this service.
    var sessionsDir: String { stateDir + "/recordkit/sessions" }
    /// The control socket.
    var socketPath: String { runtimeDir + "/recordkit/recordd.sock" }

    /// `recordctl ARGS`, to completion.
    @discardableResult
    func ctl(_ args: [String], timeout: TimeInterval = 60) throws -> ProcessResult {
        try ProcessRunner.run(recordctl, args, environment: environment, timeout: timeout)
    }

    /// `recordctl ARGS`; fails the test unless it exits 0; returns stdout trimmed.
    @discardableResult
    func ok(_ args: [String], timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let r = try ctl(args, timeout: timeout)
        XCTAssertEqual(r.exitCode, 0, "recordctl \(args.joined(separator: " ")): \(r)", file: file, line: line)
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The service's status as JSON.
    func status() throws -> [String: Any] {
        let out = try ok(["status", "--json"])
        return (try JSONSerialization.jsonObject(with: Data(out.utf8))) as? [String: Any] ?? [:]
    }

    /// The service's pid, from `status --json`.
    func pid() throws -> Int32? {
        ((try status()["service"] as? [String: Any])?["pid"] as? NSNumber)?.int32Value
    }

    /// `recordctl events --json` in the background; `events()` returns what arrived so far.
    func watchEvents() throws -> EventWatcher {
        let w = EventWatcher(try RunningProcess(recordctl, ["events", "--json"], environment: environment))
        usleep(300_000)
        return w
    }

    /// Stops the service (and kills it if it does not go), removes the runtime directory.
    func shutdown() {
        defer { try? FileManager.default.removeItem(atPath: runtimeDir) }
        guard let pid = try? pid() else { return }
        _ = try? ctl(["service", "stop"], timeout: 20)
        for _ in 0..<50 where kill(pid, 0) == 0 { usleep(100_000) }
        if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
    }
}

/// Collects `recordctl events --json` lines.
final class EventWatcher: @unchecked Sendable {
    let process: RunningProcess
    /// Events already returned by `waitFor` (each is returned once, in order).
    private var consumed = 0
    init(_ process: RunningProcess) { self.process = process }

    /// Waits (bounded) for the next event, after those already returned, matching `predicate`.
    func waitFor(timeout: TimeInterval, _ predicate: @escaping ([String: Any]) -> Bool) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let lines = String(decoding: process.stdoutData, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let complete = lines.dropLast().compactMap { EventWatcher.parse(String($0)) }
            if consumed < complete.count {
                for i in consumed..<complete.count where predicate(complete[i]) {
                    consumed = i + 1
                    return complete[i]
                }
            }
            if Date() >= deadline { return nil }
            usleep(50_000)
        }
    }

    /// Ends the watcher and returns every event it printed.
    func finish() -> [[String: Any]] {
        process.terminate(grace: 2)
        let r = process.wait(timeout: 5, grace: 1)
        return r.stdout.split(separator: "\n").compactMap { EventWatcher.parse(String($0)) }
    }

    static func parse(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}
