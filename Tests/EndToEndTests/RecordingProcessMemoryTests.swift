import Foundation
import XCTest

/// The recording processes opt out of transparent huge pages (`RecordingProcessMemory`;
/// docs/ENCODING.md, "Transparent huge pages"): the kernel says so in /proc/PID/status
/// (`THP_enabled: 0`) for `recordctl record` (the engine it becomes) and for `recordd`.
final class RecordingProcessMemoryTests: EndToEndTestCase {
    /// `THP_enabled` of a live process, or nil when it is gone or the kernel does not say.
    private func hugePagesEnabled(pid: pid_t) -> String? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        return status.split(separator: "\n").first { $0.hasPrefix("THP_enabled:") }?
            .dropFirst("THP_enabled:".count).trimmingCharacters(in: .whitespaces)
    }

    func testRecordRunsWithoutTransparentHugePages() throws {
        let output = path("thp.mp4")
        let record = try RunningProcess(try rig.recordctlPath(),
                                        ["record", "--duration", "60", "--region", "160x120+0+0", "--no-mic", "--no-app-audio",
                                         "--output", output], environment: rig.environment([:]))
        // recordctl execs the engine (same pid), which opts out as it starts: wait for that (a
        // slow machine takes seconds to get there), then for the recording's file (by then the
        // engine handles Ctrl-C; before it, Ctrl-C ends it with the default 130, as it would any
        // command line still starting), then stop the recording with Ctrl-C.
        let deadline = Date().addingTimeInterval(30)
        var enabled = hugePagesEnabled(pid: record.pid)
        while enabled != "0", record.isRunning, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            enabled = hugePagesEnabled(pid: record.pid)
        }
        XCTAssertTrue(waitForRecordingFile(output, timeout: 30), "the recording started")
        record.send(SIGINT)
        let result = record.wait(timeout: 60)
        XCTAssertEqual(result.exitCode, 0, "\(result)")
        XCTAssertEqual(enabled, "0", "the recording process opted out of transparent huge pages")
    }

    func testTheServiceRunsWithoutTransparentHugePages() throws {
        let service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { service.shutdown() }
        let pid = try XCTUnwrap(try service.pid(), "status names the service's pid")  // starts recordd
        XCTAssertEqual(hugePagesEnabled(pid: pid), "0", "recordd opted out of transparent huge pages")
    }
}
