import Foundation
import XCTest

/// Extensions through the service: `recordctl start --extension … --setup …`, then pause, resume
/// and stop. The Python extension sees the whole broadcast in order; a crashing one beside it is
/// ended with its reason, which status and events show, while the file is finalized.
final class ExtensionServiceTests: EndToEndTestCase {
    private var service: ServiceHarness!

    override func setUpWithError() throws {
        try super.setUpWithError()
        service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { [service] in service?.shutdown() }
    }

    func testPythonExtensionAndACrashingOneThroughStartPauseResumeStop() throws {
        let crasher = path("extensions/crasher")
        try FileManager.default.createDirectory(atPath: crasher, withIntermediateDirectories: true)
        try #"{"name": "crasher", "version": "1.0.0", "entry": {"executable": "program"}, "input": {"video": {"format": "raw", "pixelFormat": "bgr0"}}, "setup": {"mode": {"type": "string"}, "after": {"type": "int"}}}"#
            .write(toFile: crasher + "/manifest.json", atomically: true, encoding: .utf8)
        let program = URL(fileURLWithPath: service.recordctl).deletingLastPathComponent().appendingPathComponent("rk-test-extension").path
        try FileManager.default.createSymbolicLink(atPath: crasher + "/program", withDestinationPath: program)

        let w = try window(color: 0x22AA66)
        let events = try service.watchEvents()
        let output = path("service.mp4"), log = path("python.jsonl")
        _ = try service.ok(["start", "--frame-rate-mode", "constant", "--window", w.id, "--output", output,
                            "--extensions-dir", packageRoot.appendingPathComponent("Extensions").path + "/python-example",
                            "--extensions-dir", path("extensions"),
                            "--extension", "python-example", "--setup", "python-example:log=\(log)",
                            "--extension", "crasher", "--setup", "crasher:mode=crash", "--setup", "crasher:after=15"])
        let failed = events.waitFor(timeout: 10) { $0["kind"] as? String == "handler" && $0["handler"] as? String == "crasher" }
        let reason = failed?["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("crashed with signal 11 (SIGSEGV) in processSampleBuffer"), "a handler event says why: \(failed ?? [:])")

        let handlers = ((try service.status()["recording"] as? [String: Any])?["recorder"] as? [String: Any])?["handlers"] as? [[String: Any]] ?? []
        let crasherStatus = handlers.first { $0["name"] as? String == "crasher" }
        XCTAssertEqual(crasherStatus?["state"] as? String, "failed", "\(handlers)")
        XCTAssertTrue((crasherStatus?["error"] as? String ?? "").contains("crashed with signal 11"), "\(handlers)")
        XCTAssertEqual(handlers.first { $0["name"] as? String == "python-example" }?["state"] as? String, "running", "\(handlers)")

        Thread.sleep(forTimeInterval: 1)
        try service.ok(["pause"])
        Thread.sleep(forTimeInterval: 0.5)
        try service.ok(["resume"])
        Thread.sleep(forTimeInterval: 1)
        // A handler failed: stop lists it with its error and exits 70.
        let stop = try service.ctl(["stop"])
        XCTAssertEqual(stop.exitCode, 70, "\(stop)")
        XCTAssertTrue(stop.stderr.contains("crasher") && stop.stderr.contains("crashed with signal 11"), "\(stop)")
        let printed = stop.stdout
        XCTAssertTrue(printed.contains(output), "stop prints the file: \(printed)")
        XCTAssertTrue(printed.contains(log), "and the extension's published path: \(printed)")
        _ = events.finish()

        let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap {
            (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["call"] as? String
        }
        let order = calls.reduce(into: [String]()) { runs, call in if runs.last != call { runs.append(call) } }
        XCTAssertEqual(order, ["started", "sample", "paused", "resumed", "sample", "finished"], "the Python extension's calls, runs collapsed")
        let probe = try FFprobe.probe(output)
        XCTAssertEqual(probe.video.count, 1, "\(probe)")
        XCTAssertEqual(probe.audio.count, 2, "\(probe)")
        XCTAssertGreaterThan(probe.video.first?.duration ?? 0, 2, "the file went on after the crash: \(probe)")
    }
}
