import Foundation
import XCTest

/// The camera and microphone switched where a user switches them besides `recordctl`: the
/// preview page's buttons (headless Chromium) and `recordctl camera off|on` reaching a
/// foreground `recordctl record`. Checked by decoding, as ``CameraTests``.
final class CameraSwitchTests: CameraTestCase {
    /// The preview page's switches, in headless Chromium: an X11 recording by the service with
    /// the camera top-left (160x120 at 8,8 of a 640x360 region) and the rig's microphone shows
    /// "Mic off" and "Camera off" buttons; clicking them switches the recording (status shows
    /// the camera off and the mic muted, the buttons then say "Mic on"/"Camera on"; the
    /// live picture's corner black; the screenshot `camera-preview-switches.png` in
    /// $RK_RIG_DIR/artifacts/preview); clicking
    /// again switches back. Events mic-off, mic-on, camera-off, camera-on arrive; in the file the
    /// corner is black between the camera's two switches and shows the bars after.
    func testPreviewPageSwitchesTheMicAndTheCamera() throws {
        let remote = (wayland.values["XDG_RUNTIME_DIR"] ?? "") + "/pipewire-0"
        let service = try ServiceHarness(rig: rig, workDir: workDir, extraEnvironment: ["PIPEWIRE_REMOTE": remote])
        defer { service.shutdown() }
        let events = try service.watchEvents()
        let output = path("preview-switches.mp4")
        let printed = try service.ok(["start", "--preview", "--region", "640x360+0+0", "--frame-rate-mode", "constant", "--output", output,
                                      "--camera", "rk-test-camera", "--camera-position", "top-left", "--camera-size", "25%"])
        guard let url = printed.split(separator: "\n").first(where: { $0.hasPrefix("preview: ") }).map({ String($0.dropFirst("preview: ".count)) }) else {
            return XCTFail("start prints the preview URL: \(printed)")
        }
        let browser = try Browser(rig: rig, workDir: workDir, size: (1280, 900))
        defer { browser.close() }
        try browser.open(url)
        let button = { (id: String, text: String) in
            "const b = document.getElementById('\(id)'); return b && b.style.display !== 'none' && !b.disabled && b.textContent === '\(text)'"
        }
        XCTAssertNotNil(try browser.wait(button("camera", "Camera off"), timeout: 20), "the page shows the camera switch")
        XCTAssertNotNil(try browser.wait(button("mic", "Mic off"), timeout: 5), "and the microphone switch")
        Thread.sleep(forTimeInterval: 1.5)
        try browser.click("camera")
        try browser.click("mic")
        XCTAssertNotNil(try browser.wait(button("camera", "Camera on"), timeout: 10), "the camera button now switches it on")
        XCTAssertNotNil(try browser.wait(button("mic", "Mic on"), timeout: 10), "the mic button now switches it on")
        let status = try service.ok(["status"])
        XCTAssertTrue(status.contains("camera: rk-test-camera off"), "the recording's camera is off: \(status)")
        XCTAssertTrue(status.contains("audio switches: mic off"), "the recording's mic is off: \(status)")
        // The live picture follows within its latency: the corner black in the page's video.
        XCTAssertNotNil(try browser.wait("""
            const v = document.getElementById('video'); if (!v.videoWidth) return false; const c = document.createElement('canvas');
            c.width = v.videoWidth; c.height = v.videoHeight; const g = c.getContext('2d'); g.drawImage(v, 0, 0);
            const d = g.getImageData(20, 20, 120, 60).data; let sum = 0; for (let i = 0; i < d.length; i += 4) sum += d[i] + d[i + 1] + d[i + 2];
            return sum / (d.length / 4) < 40
            """, timeout: 10), "the page's live picture shows the corner gone")
        let micSilent = try browser.wait("const l = ((window.rk.lastStatus || {}).recording || {}).capture; "
                                         + "return !!l && !!l.audioLevelsDb && l.audioLevelsDb.audioMic <= -90", timeout: 5)
        let levels = try browser.eval("return JSON.stringify(((window.rk.lastStatus || {}).recording || {}).capture)")
        XCTAssertNotNil(micSilent, "the page's microphone meter shows silence: \(String(describing: levels))")
        let directory = rig.rigDir + "/artifacts/preview"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try browser.screenshot(directory + "/camera-preview-switches.png")
        print("CameraTests: screenshot \(directory)/camera-preview-switches.png")
        Thread.sleep(forTimeInterval: 1.5)
        try browser.click("camera")
        try browser.click("mic")
        XCTAssertNotNil(try browser.wait(button("camera", "Camera off"), timeout: 10), "switched back on")
        XCTAssertNotNil(try browser.wait(button("mic", "Mic off"), timeout: 10))
        Thread.sleep(forTimeInterval: 1.5)
        try service.ok(["stop"])
        let all = events.finish()
        let kinds = all.compactMap { $0["kind"] as? String }
        for kind in ["camera-off", "mic-off", "camera-on", "mic-on"] { XCTAssertTrue(kinds.contains(kind), "\(kind) in \(kinds)") }
        let times = all.filter { ($0["kind"] as? String)?.hasPrefix("camera-") == true }.compactMap { ($0["time"] as? NSNumber)?.doubleValue }
        guard times.count == 2 else { return XCTFail("two camera switches: \(times)") }
        let corner = PixelRect(x: 8, y: 8, width: 160, height: 120)
        XCTAssertLessThan(try FrameSampler.frame(output, at: (times[0] + times[1]) / 2).mean(corner).distance(to: RGB(r: 0, g: 0, b: 0)), 12,
                          "while off the corner shows the black root window")
        assertBars(try FrameSampler.frame(output, at: times[1] + 1), in: corner, "after the page switched it on")
    }

    /// A foreground `recordctl record` (no service) is switched by `recordctl camera off|on`
    /// typed elsewhere: a portal recording with the camera top-left; `camera off` after 2 s and
    /// `camera on` 2 s later print their times and the recording says them on standard error;
    /// the corner is black between them; `recordctl pause` does not reach it (it is not the
    /// service's), and with nothing recording `camera off` fails saying so.
    func testForegroundRecordIsSwitchedByRecordctl() throws {
        let recordctl = try wayland.reachable(try rig.recordctlPath(), also: ["recordctl-engine"])
        let out = try wayland.workDirectory(name)
        defer { if testRun?.totalFailureCount == 0 { try? FileManager.default.removeItem(atPath: out) } }
        let output = out + "/foreground.mp4"
        try wayland.waitForLastCastToEnd()  // the screen is still (WaylandRig.waitForLastCastToEnd)
        let (exe, argv) = wayland.command(recordctl, ["record", "--source", "portal", "--no-mic", "--no-app-audio", "--duration", "6",
                                                      "--frame-rate-mode", "constant", "--output", output,
                                                      "--camera", "rk-test-camera", "--camera-position", "top-left"])
        let record = try RunningProcess(exe, argv)
        Thread.sleep(forTimeInterval: 2)
        let switchCamera = { (state: String) throws -> ProcessResult in
            let (e, a) = self.wayland.command(recordctl, ["camera", state])
            return try ProcessRunner.run(e, a, timeout: 30)
        }
        // A loaded machine takes longer than 2 s to start the recording: until it runs, the switch
        // finds nothing to switch (exit 69); asked again until it does, within a bound.
        var off = try switchCamera("off")
        let reachable = Date().addingTimeInterval(30)
        while off.exitCode == 69, off.stderr.contains("nothing to switch"), Date() < reachable {
            Thread.sleep(forTimeInterval: 0.3)
            off = try switchCamera("off")
        }
        XCTAssertEqual(off.exitCode, 0, "\(off)")
        Thread.sleep(forTimeInterval: 2)
        let on = try switchCamera("on")
        XCTAssertEqual(on.exitCode, 0, "\(on)")
        let (pe, pa) = wayland.command(recordctl, ["pause"])
        // `pause` starts the service on demand (as tmux starts its server): stop it, or it outlives the test.
        defer {
            let (se, sa) = wayland.command(recordctl, ["service", "stop"])
            _ = try? ProcessRunner.run(se, sa, timeout: 30)
        }
        XCTAssertNotEqual(try ProcessRunner.run(pe, pa, timeout: 30).exitCode, 0, "pause is the service's verb")
        let result = record.wait(timeout: 60)
        XCTAssertEqual(result.exitCode, 0, "\(result)")
        guard let offAt = Double(off.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
              let onAt = Double(on.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else { return XCTFail("times: \(off) \(on)") }
        XCTAssertTrue(result.stderr.contains(String(format: "camera off at %.3f s", offAt)), result.stderr)
        XCTAssertTrue(result.stderr.contains(String(format: "camera on at %.3f s", onAt)), result.stderr)
        // 1920x1080 at 25 %: 480x360 at the inset 26,26.
        let corner = PixelRect(x: 26, y: 26, width: 480, height: 360)
        // The camera's first picture comes up to about a second after the recording's first frame on a loaded machine.
        assertBars(try FrameSampler.frame(output, at: max(offAt / 2, offAt - 0.3)), in: corner, "before off")
        XCTAssertLessThan(try FrameSampler.frame(output, at: (offAt + onAt) / 2).mean(corner).distance(to: RGB(r: 0x33, g: 0x66, b: 0xCC)), 12,
                          "while off the corner shows the screen's background")
        assertBars(try FrameSampler.frame(output, at: onAt + 0.7), in: corner, "after on")
        let late = try switchCamera("off")
        XCTAssertNotEqual(late.exitCode, 0, "nothing to switch after the recording")
        XCTAssertTrue(late.stderr.contains("no `recordctl record` runs in the foreground") || late.stderr.contains("nothing is recording"),
                      "says there is nothing to switch (a service of an earlier test may still run): \(late.stderr)")
    }
}
