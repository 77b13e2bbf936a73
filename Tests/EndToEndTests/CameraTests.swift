import Foundation
import XCTest

/// The camera picture-in-picture: the Wayland rig's test camera (scripts/wayland-rig.sh
/// `camera-start`: the PipeWire node rk-test-camera, SMPTE bars 320x240 BGRx at 30 fps)
/// composited into the recording's corner, on a Wayland recording through the portal and on an
/// X11 recording by the service, with the live switch `recordctl camera off|on`. Checked by
/// decoding: the bars' colours where the corner must be, the screen elsewhere, and per frame
/// the corner gone exactly while off.
final class CameraTests: CameraTestCase {
    /// `recordctl cameras` lists the rig's camera node; `record --camera` on the Wayland portal
    /// draws it bottom-right at 25 % (480x360 at 1414,694 of 1920x1080) with its colours, the
    /// screen's background elsewhere; a camera name nobody has is refused with the names there are.
    func testCameraInTheCornerOfAPortalRecording() throws {
        let recordctl = try wayland.reachable(try rig.recordctlPath(), also: ["recordctl-engine"])
        let out = try wayland.workDirectory(name)
        defer { if testRun?.totalFailureCount == 0 { try? FileManager.default.removeItem(atPath: out) } }
        let (lexe, largv) = wayland.command(recordctl, ["cameras"])
        let listing = try ProcessRunner.run(lexe, largv, timeout: 30)
        XCTAssertEqual(listing.exitCode, 0, "\(listing)")
        XCTAssertTrue(listing.stdout.contains("pipewire\trk-test-camera\tnode "), "the rig's camera node: \(listing.stdout)")
        XCTAssertTrue(listing.stdout.contains("Camera"), "with its role: \(listing.stdout)")

        let path = out + "/camera.mp4"
        let args = ["record", "--source", "portal", "--no-mic", "--no-app-audio", "--duration", "3", "--output", path,
                    "--camera", "--camera-position", "bottom-right", "--camera-size", "25%"]
        try wayland.waitForLastCastToEnd()  // the screen is still (WaylandRig.waitForLastCastToEnd)
        let (exe, argv) = wayland.command("/usr/bin/time", ["-f", "rk-cpu-seconds=%U+%S", recordctl] + args)
        let result = try ProcessRunner.run(exe, argv, timeout: 90)
        XCTAssertEqual(result.exitCode, 0, "\(result)")
        verbose("camera recording: \(result.stderr.suffix(300))")
        let frame = try FrameSampler.frame(path, at: 2)
        XCTAssertEqual(frame.width, 1920)
        assertBars(frame, in: PixelRect(x: 1414, y: 694, width: 480, height: 360), "portal corner")
        assertColour(frame, PixelRect(x: 900, y: 300, width: 200, height: 200), is: RGB(r: 0x33, g: 0x66, b: 0xCC), tolerance: 12, "the screen")
        assertColour(frame, PixelRect(x: 1414 - 20, y: 694 + 100, width: 12, height: 12), is: RGB(r: 0x33, g: 0x66, b: 0xCC), tolerance: 12,
                     "left of the corner")

        let (bexe, bargv) = wayland.command(recordctl, ["record", "--source", "portal", "--no-mic", "--no-app-audio", "--duration", "1",
                                                        "--output", out + "/bad.mp4", "--camera", "no-such-camera"])
        let bad = try ProcessRunner.run(bexe, bargv, timeout: 60)
        XCTAssertEqual(bad.exitCode, 69, "\(bad)")
        XCTAssertTrue(bad.stderr.contains("no camera called 'no-such-camera'") && bad.stderr.contains("rk-test-camera"), bad.stderr)
    }

    /// An X11 recording by the service with the camera top-left at 25 % of a 640x360 region
    /// (160x120 at 8,8): `camera off` after 2 s, `camera on` 2 s later. Events camera-off and
    /// camera-on carry the times recordctl printed; status shows the switch; in the file the
    /// corner shows the bars before and after and the black root window exactly while off
    /// (every frame, within 100 ms of the switch times).
    func testCameraOffAndOnHidesTheCornerExactlyWhileOff() throws {
        let remote = (wayland.values["XDG_RUNTIME_DIR"] ?? "") + "/pipewire-0"
        let service = try ServiceHarness(rig: rig, workDir: workDir, extraEnvironment: ["PIPEWIRE_REMOTE": remote])
        defer { service.shutdown() }
        let events = try service.watchEvents()
        let output = path("camera-switch.mp4")
        try service.ok(["start", "--region", "640x360+0+0", "--frame-rate-mode", "constant", "--no-mic", "--no-app-audio",
                        "--output", output, "--camera", "rk-test-camera", "--camera-position", "top-left", "--camera-size", "25%"])
        XCTAssertTrue(try service.ok(["status"]).contains("camera: rk-test-camera on"), "status shows the camera on")
        Thread.sleep(forTimeInterval: 2)
        let offPrinted = Double(try service.ok(["camera", "off"])) ?? -1
        XCTAssertTrue(try service.ok(["status"]).contains("camera: rk-test-camera off"), "status shows the camera off")
        Thread.sleep(forTimeInterval: 2)
        let onPrinted = Double(try service.ok(["camera", "on"])) ?? -1
        Thread.sleep(forTimeInterval: 2)
        try service.ok(["stop"])
        let all = events.finish()
        let switches = all.filter { ($0["kind"] as? String)?.hasPrefix("camera-") == true }
        XCTAssertEqual(switches.compactMap { $0["kind"] as? String }, ["camera-off", "camera-on"], "one event per switch, in order")
        guard switches.count == 2, let off = (switches[0]["time"] as? NSNumber)?.doubleValue,
              let on = (switches[1]["time"] as? NSNumber)?.doubleValue else { return XCTFail("switch events with times: \(switches)") }
        XCTAssertEqual(off, offPrinted, accuracy: 0.002, "recordctl camera prints the event's time")
        XCTAssertEqual(on, onPrinted, accuracy: 0.002)

        let corner = PixelRect(x: 8, y: 8, width: 160, height: 120)
        assertBars(try FrameSampler.frame(output, at: off / 2), in: corner, "before off")
        assertBars(try FrameSampler.frame(output, at: on + 1), in: corner, "after on")
        XCTAssertLessThan(try FrameSampler.frame(output, at: (off + on) / 2).mean(corner).distance(to: RGB(r: 0, g: 0, b: 0)), 12,
                          "while off the corner shows the black root window")
        // Every frame: the corner's mean luma is the bars' (bright) exactly outside [off, on).
        let frames = try FrameStats.frames(output, crop: corner)
        XCTAssertGreaterThan(frames.count, 100, "6 s at 30 fps, constant frame rate")
        var misplaced: [String] = []
        // The camera's first picture comes a few frames after the screen's (seen: 2 frames).
        for f in frames where f.time > 0.25 && abs(f.time - off) > 0.1 && abs(f.time - on) > 0.1 {
            let shown = f.y > 60
            if shown == (f.time >= off && f.time < on) { misplaced.append(String(format: "%.3f:%.0f", f.time, f.y)) }
        }
        XCTAssertEqual(misplaced, [], "frames whose corner contradicts the switch (off \(off), on \(on))")
        let late = try service.ctl(["camera", "on"])
        XCTAssertNotEqual(late.exitCode, 0, "camera without a recording fails")
    }

    /// `--camera-track` on an X11 recording by the service (640x360 region, constant frame rate,
    /// app audio): the file has two video streams, the screen's (no corner: the black root window
    /// where the corner would be) and the camera's at its own 320x240 with the bars; both video
    /// streams and the audio last as long within two frames; `camera off` 2 s in and `camera on`
    /// 2 s later turn the track black exactly in between (every frame more than 100 ms from a
    /// switch), without a gap: the track has a frame in every slot.
    func testCameraTrackIsItsOwnVideoStream() throws {
        let remote = (wayland.values["XDG_RUNTIME_DIR"] ?? "") + "/pipewire-0"
        let service = try ServiceHarness(rig: rig, workDir: workDir, extraEnvironment: ["PIPEWIRE_REMOTE": remote])
        defer { service.shutdown() }
        let output = path("camera-track.mp4")
        try service.ok(["start", "--region", "640x360+0+0", "--frame-rate-mode", "constant", "--no-mic",
                        "--output", output, "--camera", "rk-test-camera", "--camera-track"])
        Thread.sleep(forTimeInterval: 2)
        let off = Double(try service.ok(["camera", "off"])) ?? -1
        Thread.sleep(forTimeInterval: 2)
        let on = Double(try service.ok(["camera", "on"])) ?? -1
        Thread.sleep(forTimeInterval: 2)
        try service.ok(["stop"])

        let probe = try FFprobe.probe(output)
        XCTAssertEqual(probe.video.count, 2, "screen and camera: \(probe)")
        guard probe.video.count == 2 else { return }
        let (screen, camera) = (probe.video[0], probe.video[1])
        XCTAssertEqual(screen.width, 640)
        XCTAssertEqual(camera.width, 320, "the camera at its own size: \(camera)")
        XCTAssertEqual(camera.height, 240)
        XCTAssertEqual(camera.codecName, "h264")
        let frame = 1.0 / 30
        if let a = screen.duration, let b = camera.duration {
            XCTAssertEqual(a, b, accuracy: 2 * frame + 0.001, "the tracks last as long: \(probe)")
            XCTAssertGreaterThan(a, 5, "6 s recorded")
        } else { XCTFail("durations: \(probe)") }
        if let audio = probe.audio.first?.duration, let a = screen.duration {
            XCTAssertEqual(audio, a, accuracy: 0.1, "audio as long as video: \(probe)")
        }
        XCTAssertEqual(Double(camera.frameCount ?? 0), Double(screen.frameCount ?? 0), accuracy: 3,
                       "as many camera frames as screen frames (constant frame rate): \(probe)")
        // The screen picture has no corner: the black root window at the top-left, where
        // --camera-position would have drawn one.
        let screenFrame = try FrameSampler.frame(output, at: off / 2)
        XCTAssertLessThan(screenFrame.mean(PixelRect(x: 8, y: 8, width: 160, height: 120)).distance(to: RGB(r: 0, g: 0, b: 0)), 12,
                          "no corner in the screen's picture")
        assertBars(try FrameSampler.frame(output, at: off / 2, videoStream: 1), in: PixelRect(x: 0, y: 0, width: 320, height: 240), "camera track before off")
        assertBars(try FrameSampler.frame(output, at: on + 1, videoStream: 1), in: PixelRect(x: 0, y: 0, width: 320, height: 240), "camera track after on")
        let frames = try FrameStats.frames(output, streamIndex: camera.index)
        var misplaced: [String] = []
        for f in frames where f.time > 0.25 && abs(f.time - off) > 0.1 && abs(f.time - on) > 0.1 {
            let shown = f.y > 60
            if shown == (f.time >= off && f.time < on) { misplaced.append(String(format: "%.3f:%.0f", f.time, f.y)) }
        }
        XCTAssertEqual(misplaced, [], "camera frames that contradict the switch (off \(off), on \(on))")
        // No gap where the camera was off (black frames fill it); a frame an overloaded encoder
        // dropped (counted, as on the screen's track) is not a gap in that sense.
        let gaps = zip(frames, frames.dropFirst()).filter { $1.time - $0.time > 4.5 * frame }
        XCTAssertEqual(gaps.map { String(format: "%.3f-%.3f", $0.time, $1.time) }, [], "no gap in the camera track")
        XCTAssertGreaterThan(Double(frames.count), 0.9 * (camera.duration ?? 0) * 30, "a frame in (nearly) every slot")
    }

    /// A camera that sends YUY2 (the rig's camera restarted with `format=YUY2`, as most USB
    /// cameras send): `recordctl record --source portal --camera --camera-track` converts it once
    /// to BGRx and records it; the camera stream (320x240) shows the seven bars in their colours.
    func testYUY2CameraIsRecorded() throws {
        try wayland.rig(["camera-start", "YUY2"])
        let recordctl = try wayland.reachable(try rig.recordctlPath(), also: ["recordctl-engine"])
        let out = try wayland.workDirectory(name)
        defer { if testRun?.totalFailureCount == 0 { try? FileManager.default.removeItem(atPath: out) } }
        let path = out + "/yuy2.mkv"
        try wayland.waitForLastCastToEnd()  // the screen is still (WaylandRig.waitForLastCastToEnd)
        let (exe, argv) = wayland.command(recordctl, ["record", "--source", "portal", "--no-mic", "--no-app-audio", "--duration", "2",
                                                      "--output", path, "--camera", "rk-test-camera", "--camera-track"])
        let result = try ProcessRunner.run(exe, argv, timeout: 90)
        XCTAssertEqual(result.exitCode, 0, "\(result)")
        let probe = try FFprobe.probe(path, countFrames: false)
        XCTAssertEqual(probe.video.count, 2, "screen and camera (Matroska too): \(probe)")
        guard probe.video.count == 2 else { return }
        XCTAssertEqual(probe.video[1].width, 320)
        XCTAssertEqual(probe.video[1].height, 240)
        assertBars(try FrameSampler.frame(path, at: 1.5, videoStream: 1), in: PixelRect(x: 0, y: 0, width: 320, height: 240), "YUY2 camera")
    }

    /// The Camera portal (the rig's xdg-desktop-portal with the gtk Access backend; the
    /// permission store allows unsandboxed apps): `recordctl cameras` reaches the camera through
    /// it (the listing says "Camera portal"), and with `RECORDKIT_CAMERA_PORTAL=0` directly;
    /// when the permission store says no, `record --camera` exits 69 saying the Camera portal
    /// refused and how to allow it (the store is set back to yes afterwards).
    func testCamerasComeThroughTheCameraPortal() throws {
        let recordctl = try wayland.reachable(try rig.recordctlPath(), also: ["recordctl-engine"])
        let (exe, argv) = wayland.command(recordctl, ["cameras"])
        let listing = try ProcessRunner.run(exe, argv, timeout: 60)
        XCTAssertEqual(listing.exitCode, 0, "\(listing)")
        XCTAssertTrue(listing.stdout.contains("rk-test-camera") && listing.stdout.contains("Camera portal"), "through the portal: \(listing.stdout)")
        let (dexe, dargv) = wayland.command(recordctl, ["cameras"], extra: ["RECORDKIT_CAMERA_PORTAL": "0"])
        let direct = try ProcessRunner.run(dexe, dargv, timeout: 60)
        XCTAssertTrue(direct.stdout.contains("rk-test-camera") && !direct.stdout.contains("Camera portal"), "directly: \(direct.stdout)")

        let store = { (answer: String) throws in
            try self.wayland.rig(["run", "busctl", "--user", "call", "org.freedesktop.impl.portal.PermissionStore",
                                  "/org/freedesktop/impl/portal/PermissionStore", "org.freedesktop.impl.portal.PermissionStore",
                                  "SetPermission", "sbssas", "devices", "true", "camera", "", "1", answer])
        }
        try store("no")
        defer { try? store("yes") }
        let out = try wayland.workDirectory(name)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (rexe, rargv) = wayland.command(recordctl, ["record", "--source", "portal", "--no-mic", "--no-app-audio", "--duration", "1",
                                                        "--output", out + "/refused.mp4", "--camera"])
        let refused = try ProcessRunner.run(rexe, rargv, timeout: 60)
        XCTAssertEqual(refused.exitCode, 69, "\(refused)")
        XCTAssertTrue(refused.stderr.contains("Camera portal") && refused.stderr.contains("allow RecordKit"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/refused.mp4"), "nothing recorded")
    }
}
