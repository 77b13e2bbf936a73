import Foundation
import XCTest

/// Hooks (docs/recordctl/hooks.md): `--on-saved CMD` runs after the recording, each split part and each replay
/// clip is final, with the path and kind as arguments and in the environment; a failing and a
/// hanging hook are events, bounded in time, and never touch the recording.
final class HookTests: EndToEndTestCase {
    private var service: ServiceHarness!

    override func setUpWithError() throws {
        try super.setUpWithError()
        service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { [service] in service?.shutdown() }
    }

    /// One recording with a split, a saved replay and a stop: the good hook ran once per file
    /// (part, replay, recording) with `$1`, `$2` and `RECORDKIT_SAVED_*`; the failing one (exit 3)
    /// and the hanging one (ended after its 2 s bound, with everything it started) are
    /// `hook-failed` events; every file is complete and the service still answers.
    func testHooksRunForEveryFinalFileAndAFailingOrHangingHookTouchesNothing() throws {
        let events = try service.watchEvents()
        let log = path("hooks.log")
        let file = path("hooked.mp4")
        let clip = path("hooked-clip.mp4")
        try service.ok(["start", "--region", "320x240+0+0", "--output", file, "--replay-buffer", "30",
                        "--on-saved", "echo \"$2 $1 $RECORDKIT_SAVED_KIND $RECORDKIT_SAVED_PATH\" >> '\(log)'; echo hook-output-marker",
                        "--on-saved", "echo failing; exit 3",
                        "--on-saved", "sleep 617 & sleep 618",
                        "--hook-timeout", "2"])
        Thread.sleep(forTimeInterval: 2.5)
        let part = try service.ok(["split"], timeout: 60)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try service.ok(["save-replay", "--output", clip]), clip)
        Thread.sleep(forTimeInterval: 1.5)
        let last = try service.ok(["stop"])
        XCTAssertEqual(part, path("hooked-001.mp4"))
        XCTAssertEqual(last, path("hooked-002.mp4"))

        // 3 files x 3 hooks; the hanging ones take their 2 s bound each (+ up to 2 s to be killed).
        var finished: [[String: Any]] = []
        var failed: [[String: Any]] = []
        while finished.count + failed.count < 9,
              let e = events.waitFor(timeout: 40, { ["hook-finished", "hook-failed"].contains($0["kind"] as? String ?? "") }) {
            if e["kind"] as? String == "hook-finished" { finished.append(e) } else { failed.append(e) }
        }
        XCTAssertEqual(finished.count, 3, "the good hook succeeded once per file: \(finished)")
        XCTAssertEqual(failed.count, 6, "the failing and the hanging hook failed once per file: \(failed)")
        XCTAssertEqual(failed.filter { ($0["reason"] as? String ?? "").contains("exited with status 3") }.count, 3, "\(failed)")
        XCTAssertEqual(failed.filter { ($0["reason"] as? String ?? "").contains("ran longer than its bound of 2.0 s") }.count, 3, "\(failed)")
        _ = events.finish()

        let lines = (try String(contentsOfFile: log, encoding: .utf8)).split(separator: "\n").map(String.init)
        XCTAssertEqual(Set(lines), ["part \(part) part \(part)", "replay \(clip) replay \(clip)", "recording \(last) recording \(last)"],
                       "path and kind as arguments and in the environment")
        XCTAssertEqual(lines.count, 3)
        for f in [part, clip, last] {
            let probe = try FFprobe.probe(f)
            XCTAssertEqual(probe.video.count, 1, "\(f) is complete: \(probe)")
            XCTAssertGreaterThan(probe.video.first?.duration ?? 0, 0.5, "\(f)")
        }
        XCTAssertEqual((try service.status()["last"] as? [String: Any])?["state"] as? String, "finished", "the recording finished normally")
        XCTAssertFalse(Self.processRunning(commandLine: "sleep617") || Self.processRunning(commandLine: "sleep618"),
                       "a hook that outlived its bound was ended with everything it started")
        let serviceLog = try String(contentsOfFile: service.stateDir + "/recordkit/recordd.log", encoding: .utf8)
        XCTAssertTrue(serviceLog.contains("hook-output-marker"), "a hook's output is in the service log")
    }

    /// `recordctl record --on-saved` (no service): the hook runs for the file before record exits.
    func testForegroundRecordRunsItsHookBeforeExiting() throws {
        let log = path("fg-hook.log")
        let file = path("fg.mp4")
        let r = try ProcessRunner.run(try rig.recordctlPath(),
                                      ["record", "--region", "320x240+0+0", "--duration", "2", "--output", file,
                                       "--on-saved", "echo \"$2 $1\" > '\(log)'", "--on-saved", "exit 4"],
                                      environment: rig.environment, timeout: 60)
        XCTAssertEqual(r.exitCode, 0, "a failing hook does not change record's exit status: \(r)")
        XCTAssertTrue(r.stderr.contains("exited with status 4"), "a failing hook is said on stderr: \(r.stderr)")
        XCTAssertEqual(try String(contentsOfFile: log, encoding: .utf8), "recording \(file)\n")
        XCTAssertEqual(try FFprobe.probe(file).video.count, 1)
    }

    /// Whether a process whose command line, without blanks, is `commandLine` runs.
    static func processRunning(commandLine: String) -> Bool {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return pids.contains { pid in
            guard pid.allSatisfy(\.isNumber), let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: data.filter { $0 != 0 }, as: UTF8.self) == commandLine
        }
    }
}
