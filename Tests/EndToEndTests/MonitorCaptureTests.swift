import Foundation
import XCTest

/// One monitor: two RandR virtual monitors side by side on the rig's Xvfb
/// (`xrandr --setmonitor`); `--monitor` records exactly the second one's pixels at its size,
/// and `recordctl monitors` lists both with their geometry.
final class MonitorCaptureTests: EndToEndTestCase {
    private func xrandr(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run("xrandr", arguments, environment: rig.environment, timeout: 20)
    }

    func testSecondOfTwoVirtualMonitorsIsRecordedAtItsSize() throws {
        let half = rig.screenWidth / 2
        // Two monitors, left and right halves of the screen; removed again at the end.
        for (name, x) in [("rk-left", 0), ("rk-right", half)] {
            let r = try xrandr(["--setmonitor", name, "\(half)/254x\(rig.screenHeight)/286+\(x)+0", "none"])
            XCTAssertEqual(r.exitCode, 0, "xrandr --setmonitor \(name): \(r)")
            addTeardownBlock { [rig] in
                _ = try? ProcessRunner.run("xrandr", ["--delmonitor", name], environment: rig!.environment, timeout: 20)
            }
        }
        let rc = try Recordctl(rig)
        let list = try ProcessRunner.run(rc.path, ["monitors"], environment: rig.environment, timeout: 20)
        XCTAssertEqual(list.exitCode, 0, "\(list)")
        XCTAssertTrue(list.stdout.contains("rk-left\t\(half)x\(rig.screenHeight)+0+0"), "monitors lists the left one: \(list.stdout)")
        XCTAssertTrue(list.stdout.contains("rk-right\t\(half)x\(rig.screenHeight)+\(half)+0"), "and the right one: \(list.stdout)")

        // Red fills the left monitor's middle, green a window on the right one, blue the right's corner.
        let left = try window(size: (400, 300), position: (half - 500, 300), color: 0xCC2222)
        let right = try window(size: (400, 300), position: (half + 200, 300), color: 0x22CC22)
        let corner = try window(size: (100, 80), position: (half, 0), color: 0x2222CC)
        let out = path("monitor.mp4")
        let r = try rc.record(["--monitor", "rk-right", "--duration", "2", "--no-mic", "--no-app-audio", "--output", out], timeout: 60)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        let probe = try FFprobe.probe(out)
        let v = try XCTUnwrap(probe.video.first, "\(probe)")
        XCTAssertEqual(v.width, half, "the monitor's width: \(probe)")
        XCTAssertEqual(v.height, rig.screenHeight, "the monitor's height: \(probe)")
        let frame = try FrameSampler.frame(out, at: 1)
        let shifted = { (w: TestWindow) in PixelRect(x: w.rect.x - half, y: w.rect.y, width: w.rect.width, height: w.rect.height) }
        assertColour(frame, shifted(right).inset(0.1), is: right.rgb, "the right monitor's window, in monitor coordinates")
        assertColour(frame, shifted(corner).inset(0.1), is: corner.rgb, "the window at the monitor's top-left corner")
        // Nothing of the left monitor: its red window is not anywhere in the frame.
        XCTAssertLessThan(frame.fraction(of: left.rgb, within: 30, in: frame.fullRect), 0.001, "no pixel of the left monitor")

        // By index too: the right monitor is the one at x = half.
        let monitors = list.stdout.split(separator: "\n").map { $0.split(separator: "\t") }
        let index = try XCTUnwrap(monitors.first { $0.count >= 3 && $0[1] == "rk-right" }?.first, "\(list.stdout)")
        let byIndex = path("monitor-index.mp4")
        let r2 = try rc.record(["--monitor", String(index), "--duration", "1", "--no-mic", "--no-app-audio", "--output", byIndex], timeout: 60)
        XCTAssertEqual(r2.exitCode, Recordctl.Exit.ok, "\(r2)")
        XCTAssertEqual(try FFprobe.probe(byIndex).video.first?.width, half)
    }

    /// The recorded monitor moves (RandR geometry changed mid-recording): the recording follows
    /// it, at the size it started with.
    func testTheRecordingFollowsTheMonitorWhenItMoves() throws {
        let size = "640/169x480/127"
        let set = { (x: Int, y: Int) throws -> ProcessResult in try self.xrandr(["--setmonitor", "rk-moving", "\(size)+\(x)+\(y)", "none"]) }
        XCTAssertEqual(try set(0, 0).exitCode, 0)
        addTeardownBlock { [rig] in
            _ = try? ProcessRunner.run("xrandr", ["--delmonitor", "rk-moving"], environment: rig!.environment, timeout: 20)
        }
        // A red window where the monitor is first, a green one where it goes.
        let before = try window(size: (300, 200), position: (100, 100), color: 0xCC2222)
        let after = try window(size: (300, 200), position: (1100, 500), color: 0x22CC22)
        // Through the service, whose status says how much has been recorded: the move's place in
        // the file is known from that, not from this test's own pace (a slow machine starts late).
        let service = try ServiceHarness(rig: rig, workDir: workDir)
        defer { service.shutdown() }
        let recorded = { [service] () -> Double in
            (((try? service.status())?["recording"] as? [String: Any])?["recorder"] as? [String: Any])?["recordedSeconds"] as? Double ?? 0
        }
        let waitRecorded = { (seconds: Double) -> Bool in
            let deadline = Date().addingTimeInterval(60)
            while recorded() < seconds { guard Date() < deadline else { return false }; Thread.sleep(forTimeInterval: 0.2) }
            return true
        }
        let out = path("moving-monitor.mp4")
        try service.ok(["start", "--monitor", "rk-moving", "--no-mic", "--no-app-audio", "--output", out])
        XCTAssertTrue(waitRecorded(2), "2 s recorded within a minute")
        // Xvfb refuses --setmonitor on an existing name: the move is a delete and a set.
        XCTAssertEqual(try xrandr(["--delmonitor", "rk-moving"]).exitCode, 0)
        XCTAssertEqual(try set(1000, 400).exitCode, 0, "move the monitor")
        let moved = recorded()
        // The monitor is looked up once a second: 2 s after the move is safely past it.
        XCTAssertTrue(waitRecorded(moved + 3), "3 s more recorded within a minute")
        try service.ok(["stop"])
        let probe = try FFprobe.probe(out)
        let v = try XCTUnwrap(probe.video.first, "\(probe)")
        XCTAssertEqual(v.width, 640, "\(probe)"); XCTAssertEqual(v.height, 480, "\(probe)")
        // The window at monitor coordinates (100,100)-(400,300): red before the move, green after it.
        let spot = PixelRect(x: 130, y: 130, width: 240, height: 140)
        assertColour(try FrameSampler.frame(out, at: 1), spot, is: before.rgb, "before the move, the monitor's first place")
        assertColour(try FrameSampler.frame(out, at: moved + 2), spot, is: after.rgb, "after the move (at \(moved) s), the monitor's new place")
    }

    func testUnknownMonitorIsABadArgumentThatListsTheMonitors() throws {
        let rc = try Recordctl(rig)
        let r = try rc.record(["--monitor", "no-such-monitor", "--duration", "1", "--output", path("x.mp4")], timeout: 30)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.usage, "\(r)")
        XCTAssertTrue(r.stderr.contains("no-such-monitor") && r.stderr.contains("monitors:"), "the error names it and lists monitors: \(r)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.mp4")))
    }
}
