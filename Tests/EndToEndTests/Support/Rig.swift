import Foundation
import XCTest

/// The package root, derived from this file's path (Tests/EndToEndTests/Support/Rig.swift).
let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Support
    .deletingLastPathComponent()  // EndToEndTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()

struct RigError: Error, CustomStringConvertible {
    var description: String
}

/// The test rig started by `scripts/rig.sh` (Xvfb + openbox, PulseAudio with app_sink/mic_sink and
/// their tones, nginx-rtmp), as described by the environment `scripts/test.sh` exports.
///
/// Nothing is skipped: without a rig the end-to-end tests fail and say how to get one.
struct Rig: Sendable {
    let display: String
    let pulseServer: String
    let rigDir: String
    let rtmpURL: String?
    let rtmpRecordDir: String?
    /// The environment children run with (the test process's own, which has the rig's variables).
    let environment: [String: String]

    /// Screen size of the rig's Xvfb.
    let screenWidth = 1920
    let screenHeight = 1080
    /// Tones playing into the rig's sinks (scripts/rig.sh).
    let appToneHz = 440.0
    let micToneHz = 1000.0

    /// The rig described by the environment, checked once per test process to answer.
    static func require() throws -> Rig {
        try shared.get()
    }

    private static let shared: Result<Rig, RigError> = Result { try Rig.load() }.mapError {
        ($0 as? RigError) ?? RigError(description: "\($0)")
    }

    private static let howTo = "run the suite with scripts/test.sh (it starts the rig), or: scripts/rig.sh start && source rig-run/env && swift test"

    private static func load() throws -> Rig {
        let env = ProcessInfo.processInfo.environment
        var missing: [String] = []
        for name in ["DISPLAY", "PULSE_SERVER", "RK_RIG_DIR"] where (env[name] ?? "").isEmpty { missing.append(name) }
        guard missing.isEmpty else {
            throw RigError(description: "test rig environment missing (\(missing.joined(separator: ", ")) not set): \(howTo)")
        }
        let rig = Rig(display: env["DISPLAY"]!, pulseServer: env["PULSE_SERVER"]!, rigDir: env["RK_RIG_DIR"]!,
                      rtmpURL: env["RK_RTMP_URL"], rtmpRecordDir: env["RK_RTMP_REC_DIR"], environment: env)
        let x = try ProcessRunner.run("xdpyinfo", ["-display", rig.display], timeout: 10)
        guard x.exitCode == 0 else {
            throw RigError(description: "X display \(rig.display) does not answer (\(x.stderr.prefix(200))): \(howTo)")
        }
        let p = try ProcessRunner.run("pactl", ["info"], environment: env, timeout: 10)
        guard p.exitCode == 0 else {
            throw RigError(description: "PulseAudio \(rig.pulseServer) does not answer (\(p.stderr.prefix(200))): \(howTo)")
        }
        return rig
    }

    /// `recordctl` to test: $RECORDCTL, else <package>/.build/debug/recordctl.
    func recordctlPath() throws -> String {
        try binary(env: "RECORDCTL", name: "recordctl")
    }

    /// `rk-testwindow`: $RK_TESTWINDOW, else next to recordctl, else <package>/.build/debug/rk-testwindow.
    func testWindowPath() throws -> String {
        if let p = environment["RK_TESTWINDOW"], !p.isEmpty { return try checkExecutable(p, name: "rk-testwindow") }
        if let rc = environment["RECORDCTL"], !rc.isEmpty {
            let sibling = URL(fileURLWithPath: rc).deletingLastPathComponent().appendingPathComponent("rk-testwindow").path
            if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        }
        return try binary(env: "RK_TESTWINDOW", name: "rk-testwindow")
    }

    private func binary(env name: String, name product: String) throws -> String {
        if let p = environment[name], !p.isEmpty { return try checkExecutable(p, name: product) }
        let p = packageRoot.appendingPathComponent(".build/debug/\(product)").path
        return try checkExecutable(p, name: product)
    }

    private func checkExecutable(_ path: String, name: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw RigError(description: "\(name) not found at \(path): build it first (swift build; scripts/test.sh does)")
        }
        return path
    }

    /// The rig's environment with changes (`nil` removes a variable).
    func environment(_ changes: [String: String?]) -> [String: String] {
        var e = environment
        for (k, v) in changes { e[k] = v }
        return e
    }

    /// A fresh directory for one test's files, under the rig dir (kept there if the test fails).
    func makeWorkDirectory(for test: String) throws -> String {
        let safe = test.replacingOccurrences(of: "[^A-Za-z0-9_.-]", with: "_", options: .regularExpression)
        let dir = URL(fileURLWithPath: rigDir).appendingPathComponent("e2e")
            .appendingPathComponent("\(safe)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }
}

/// Recursive listing of a directory (relative paths, sorted), for "no stray files" checks.
func directoryListing(_ path: String) -> [String] {
    guard let e = FileManager.default.enumerator(atPath: path) else { return [] }
    return (e.allObjects as? [String] ?? []).sorted()
}
