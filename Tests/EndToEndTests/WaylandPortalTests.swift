import Foundation
import XCTest

/// A Wayland screen recorded through the ScreenCast portal and PipeWire, on the headless Wayland
/// rig (scripts/wayland-rig.sh: sway with a #3366CC background, `weston-presentation-shm` for
/// motion), by `recordctl record` running as the rig's user in a session without X.
final class WaylandPortalTests: EndToEndTestCase {
    private var wayland: WaylandRig!
    private var recordctl: String!
    private var out: String!
    private static let background = RGB(r: 0x33, g: 0x66, b: 0xCC)
    /// Part of the wheel `weston-presentation-shm` turns (its window floats at 0,0, 250x250):
    /// red, green, blue and white pass through it.
    private static let motionRect = PixelRect(x: 150, y: 40, width: 50, height: 50)
    /// Away from the moving window.
    private static let backgroundRect = PixelRect(x: 1400, y: 600, width: 300, height: 300)

    override func setUpWithError() throws {
        try super.setUpWithError()
        wayland = try WaylandRig.require()
        recordctl = try wayland.reachable(try rig.recordctlPath(), also: ["recordctl-engine"])
        out = try wayland.workDirectory(name)
        addTeardownBlock { [weak self, out] in
            // Kept for inspection when the test failed, as EndToEndTestCase keeps its work dir.
            if let out, self?.testRun?.totalFailureCount == 0 { try? FileManager.default.removeItem(atPath: out) }
            else if let out { print("WaylandPortalTests: kept \(out) for inspection") }
        }
    }

    /// `recordctl record --duration seconds ARGS` as the rig's user; the file is `file` in the work dir.
    private func record(_ file: String, seconds: Double, _ arguments: [String] = [], audio: Bool = false) throws -> (ProcessResult, String) {
        let path = out + "/" + file
        var args = ["record", "--duration", String(seconds), "--output", path] + arguments
        var extra: [String: String] = [:]
        if audio { extra["PULSE_SERVER"] = rig.pulseServer; args += ["--no-mic"] } else { args += ["--no-mic", "--no-app-audio"] }
        let (exe, argv) = wayland.command("/usr/bin/time", ["-f", "rk-cpu-seconds=%U+%S", recordctl] + args, extra: extra)
        let result = try ProcessRunner.run(exe, argv, timeout: seconds + 90)
        verbose("recordctl \(args.joined(separator: " ")): \(result.stderr.suffix(400))")
        return (result, path)
    }

    /// Moving content for the rest of the test.
    private func startMotion() throws {
        let motion = try wayland.startMotion()
        addTeardownBlock { _ = motion.wait(timeout: 0.1, grace: 2) }
    }

    private func framesCaptured(_ result: ProcessResult) -> Int? {
        guard let range = result.stderr.range(of: #"(\d+) frames captured"#, options: .regularExpression) else { return nil }
        return Int(result.stderr[range].split(separator: " ")[0])
    }

    private func cpuSeconds(_ result: ProcessResult) -> Double? {
        guard let range = result.stderr.range(of: #"rk-cpu-seconds=[0-9.]+\+[0-9.]+"#, options: .regularExpression) else { return nil }
        return result.stderr[range].dropFirst("rk-cpu-seconds=".count).split(separator: "+").compactMap { Double($0) }.reduce(0, +)
    }

    /// Without --source, in a session with WAYLAND_DISPLAY and no DISPLAY: the portal records the
    /// whole 1920x1080 output, its background colour and the motion, every frame the compositor
    /// delivered reaching the pipeline; app audio comes from the PulseAudio rig (440 Hz).
    func testWaylandScreenIsRecordedThroughThePortal() throws {
        try startMotion()
        let (result, path) = try record("screen.mp4", seconds: 5, audio: true)
        XCTAssertEqual(result.exitCode, 0, "\(result)")
        let probe = try FFprobe.probe(path)
        XCTAssertEqual(probe.video.first?.width, 1920)
        XCTAssertEqual(probe.video.first?.height, 1080)
        XCTAssertGreaterThanOrEqual(framesCaptured(result) ?? 0, 75, "the compositor draws at 30 fps for 5 s: \(result.stderr.suffix(300))")
        XCTAssertGreaterThanOrEqual(probe.video.first?.frameCount ?? 0, 15, "a loaded machine drops some in the encoder: \(probe)")
        let frame = try FrameSampler.frame(path, at: 2.5)
        assertColour(frame, Self.backgroundRect, is: Self.background, tolerance: 12, "background")
        let lumas = try FrameSampler.meanLuma(path, Self.motionRect)
        let distinct = Set(lumas.map { Int(($0 * 2).rounded()) })
        XCTAssertGreaterThanOrEqual(distinct.count, 5, "the moving window changes from frame to frame: \(lumas.prefix(20))")
        if let audio = probe.audio.first {
            XCTAssertEqual(probe.audio.count, 1, "app audio only (--no-mic): \(probe) \(audio)")
            let tone = try ToneAnalyzer.analyze(path, audioStream: 0, candidates: [440, 1000])
            XCTAssertEqual(tone.dominant, 440, "app audio from the PulseAudio rig: \(tone)")
        } else {
            XCTFail("no audio track: \(probe); \(result.stderr.suffix(400))")
        }
    }

    /// The first recording stores the portal's restore token (0600, never printed); with the
    /// backend's output renamed to one that does not exist, a new selection fails but the token
    /// still casts the monitor: the second recording needed no selection.
    func testSecondRecordingStartsFromTheRestoreTokenWithoutASelection() throws {
        let (first, _) = try record("first.mp4", seconds: 1.5, ["--source", "portal"])
        XCTAssertEqual(first.exitCode, 0, "\(first)")
        let tokenPath = (wayland.values["XDG_STATE_HOME"] ?? "") + "/recordkit/portal-restore-token"
        let attributes = try FileManager.default.attributesOfItem(atPath: tokenPath)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual((attributes[.ownerAccountID] as? NSNumber)?.stringValue, wayland.uid)
        let token = try String(contentsOfFile: tokenPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(token.isEmpty)
        XCTAssertFalse(first.stdout.contains(token) || first.stderr.contains(token), "the token is never printed")

        try wayland.rig(["portal-output", "NO-SUCH-OUTPUT"])
        addTeardownBlock { [wayland] in try? wayland?.rig(["portal-output", "HEADLESS-1"]) }
        // Without the token the portal cannot select anything now...
        try FileManager.default.moveItem(atPath: tokenPath, toPath: tokenPath + ".away")
        let refused = try record("refused.mp4", seconds: 1.5, ["--source", "portal"])
        XCTAssertNotEqual(refused.0.exitCode, 0, "a new selection must fail with no such output: \(refused.0)")
        XCTAssertTrue(refused.0.stderr.contains("portal"), "the error names the portal: \(refused.0.stderr.suffix(300))")
        // ...and with it the monitor is cast.
        try FileManager.default.moveItem(atPath: tokenPath + ".away", toPath: tokenPath)
        let (second, path) = try record("second.mp4", seconds: 2, ["--source", "portal"])
        XCTAssertEqual(second.exitCode, 0, "\(second)")
        assertColour(try FrameSampler.frame(path, at: 1), Self.backgroundRect, is: Self.background, tolerance: 12, "restored cast")
    }

    /// `--region` is a crop of the monitor's picture: its size, and the colour that lies there.
    func testRegionIsACropOfTheMonitor() throws {
        let colour = RGB(r: 0xCC, g: 0x33, b: 0x66)
        try wayland.rig(["bg", "#CC3366"])
        addTeardownBlock { [wayland] in try? wayland?.rig(["bg", "#3366CC"]) }
        Thread.sleep(forTimeInterval: 1.5)  // swaybg restarts: grey frames in between
        let (result, path) = try record("region.mp4", seconds: 2, ["--source", "portal", "--region", "640x360+1200+600"])
        XCTAssertEqual(result.exitCode, 0, "\(result)")
        let probe = try FFprobe.probe(path)
        XCTAssertEqual(probe.video.first?.width, 640)
        XCTAssertEqual(probe.video.first?.height, 360)
        assertColour(try FrameSampler.frame(path, at: 1), PixelRect(x: 0, y: 0, width: 640, height: 360), is: colour, tolerance: 12, "region")
        let (bad, _) = try record("bad.mp4", seconds: 1, ["--source", "portal", "--region", "640x360+1600+900"])
        XCTAssertNotEqual(bad.exitCode, 0)
        XCTAssertTrue(bad.stderr.contains("does not lie inside"), "\(bad.stderr.suffix(300))")
    }

    /// A still Wayland screen: the compositor sends one frame, the recording repeats it twice a
    /// second (variable frame rate) and costs a fraction of a moving one.
    func testStillScreenCostsAlmostNothing() throws {
        let (still, stillPath) = try record("still.mp4", seconds: 5, ["--source", "portal"])
        XCTAssertEqual(still.exitCode, 0, "\(still)")
        let captured = framesCaptured(still) ?? .max
        XCTAssertLessThanOrEqual(captured, 14, "one frame, then a repeat every half second: \(still.stderr.suffix(300))")
        XCTAssertLessThanOrEqual(try FFprobe.probe(stillPath).video.first?.frameCount ?? .max, 14)
        try startMotion()
        let (moving, _) = try record("moving.mp4", seconds: 5, ["--source", "portal"])
        XCTAssertEqual(moving.exitCode, 0, "\(moving)")
        let stillCPU = cpuSeconds(still) ?? .infinity, movingCPU = cpuSeconds(moving) ?? 0
        verbose("CPU seconds: still \(stillCPU), moving \(movingCPU)")
        XCTAssertLessThan(stillCPU, movingCPU * 0.6, "still \(stillCPU) s vs moving \(movingCPU) s of CPU")
    }

    /// A wlroots compositor copies its output for the cast only when something changes, so on a
    /// still screen the first picture can come late (or not at all). The recording waits for it
    /// instead of failing (it failed after 10 s with "sent no frame"), `--duration` still ends it,
    /// and the file holds the picture that came: the background changed 11 s in.
    func testRecordingWaitsForALateFirstPictureOnAStillScreen() throws {
        let path = out + "/late.mp4"
        let colour = RGB(r: 0xCC, g: 0x33, b: 0x66)
        let (exe, argv) = wayland.command(recordctl, ["record", "--duration", "16", "--no-mic", "--no-app-audio", "--source", "portal", "--output", path])
        let recording = try RunningProcess(exe, argv)
        addTeardownBlock { [wayland] in try? wayland?.rig(["bg", "#3366CC"]) }
        Thread.sleep(forTimeInterval: 11)
        try wayland.rig(["bg", "#CC3366"])
        let result = recording.wait(timeout: 90, grace: 5)
        verbose("late first picture: \(result.stderr.suffix(400))")
        XCTAssertEqual(result.exitCode, 0, "\(result.stderr.suffix(400))")
        XCTAssertFalse(result.stderr.contains("sent no frame"), "\(result.stderr.suffix(400))")
        let probe = try FFprobe.probe(path)
        let duration = try XCTUnwrap(probe.formatDuration, "\(probe)")
        XCTAssertGreaterThan(duration, 1, "\(probe)")
        XCTAssertLessThan(duration, 17, "\(probe)")
        assertColour(try FrameSampler.frame(path, at: duration - 0.3), Self.backgroundRect, is: colour, tolerance: 12, "the picture after the change")
    }

    /// The portal's cast ending mid-recording (its backend killed) ends the recording by itself
    /// with a reason that names the screen cast, and what was recorded is kept and playable.
    func testPortalSessionEndingEndsTheRecording() throws {
        try startMotion()
        let path = out + "/ended.mp4"
        let (exe, argv) = wayland.command(recordctl, ["record", "--duration", "60", "--no-mic", "--no-app-audio", "--source", "portal", "--output", path])
        let recording = try RunningProcess(exe, argv)
        Thread.sleep(forTimeInterval: 4)
        addTeardownBlock { [wayland] in try? wayland?.rig(["start"]) }
        try wayland.rig(["stop-portal-backend"])
        let result = recording.wait(timeout: 40, grace: 5)
        XCTAssertFalse(result.stderr.contains("recorded 60"), "it ended by itself: \(result)")
        XCTAssertTrue(result.stderr.contains("screen cast"), "the reason names the screen cast: \(result.stderr.suffix(400))")
        let probe = try FFprobe.probe(path)
        XCTAssertGreaterThanOrEqual(probe.formatDuration ?? 0, 1, "what was recorded before the end is kept (the start is slow on a loaded machine): \(probe)")
        XCTAssertLessThan(probe.formatDuration ?? 99, 20, "\(probe)")
    }
}
