import Foundation
import XCTest

/// Cameras that send what USB webcams send besides raw RGB: the Wayland rig's test camera
/// (scripts/wayland-rig.sh `camera-start FORMAT 640x480`: SMPTE bars at 30 fps) as MJPEG
/// (GStreamer's jpegenc, decoded by libavcodec on the camera's thread), NV12 and I420
/// (converted to BGRx on the camera's thread), recorded through the portal and checked by
/// decoding: the seven bars' colours in the corner and in the camera's own track; and a camera
/// whose broken JPEGs are skipped and counted.
final class CameraFormatTests: CameraTestCase {
    /// An MJPEG camera (640x480 JPEGs): `recordctl cameras` lists what it offers (`formats:
    /// MJPEG 640x480 30 fps`); `record --source portal --camera` draws it bottom-right
    /// at 25 % (480x360 at 1414,694 of 1920x1080) with the bars' colours and the screen's
    /// background beside it. Then (a new camera run: pipewiresink's provide mode feeds one
    /// consumer per run) an X11 recording by the service with `--camera-track`: `recordctl
    /// status` says the camera sends MJPEG 640x480 and no picture was skipped, and the file's
    /// second video stream is the camera at its own 640x480 with the bars.
    func testMJPEGCameraIsDecodedIntoTheCornerAndItsTrack() throws {
        try wayland.rig(["camera-start", "MJPEG", "640x480"])
        let recordctl = try wayland.reachable(try rig.recordctlPath(), also: ["recordctl-engine"])
        let out = try wayland.workDirectory(name)
        defer { if testRun?.totalFailureCount == 0 { try? FileManager.default.removeItem(atPath: out) } }
        let (lexe, largv) = wayland.command(recordctl, ["cameras"])
        let listing = try ProcessRunner.run(lexe, largv, timeout: 30)
        XCTAssertTrue(listing.stdout.contains("rk-test-camera") && listing.stdout.contains("\tformats: MJPEG 640x480 30 fps"),
                      "what the camera offers, read from its port: \(listing)")
        let corner = out + "/mjpeg-corner.mp4"
        try wayland.waitForLastCastToEnd()  // the screen is still (WaylandRig.waitForLastCastToEnd)
        let (exe, argv) = wayland.command(recordctl, ["record", "--source", "portal", "--no-mic", "--no-app-audio", "--duration", "3",
                                                      "--output", corner, "--camera", "rk-test-camera",
                                                      "--camera-position", "bottom-right", "--camera-size", "25%"])
        let result = try ProcessRunner.run(exe, argv, timeout: 90)
        XCTAssertEqual(result.exitCode, 0, "\(result)")
        let frame = try FrameSampler.frame(corner, at: 2)
        XCTAssertEqual(frame.width, 1920)
        assertBars(frame, in: PixelRect(x: 1414, y: 694, width: 480, height: 360), "MJPEG camera in the corner")
        assertColour(frame, PixelRect(x: 1414 - 20, y: 694 + 100, width: 12, height: 12), is: RGB(r: 0x33, g: 0x66, b: 0xCC), tolerance: 12,
                     "left of the corner")

        try wayland.rig(["camera-start", "MJPEG", "640x480"])
        let remote = (wayland.values["XDG_RUNTIME_DIR"] ?? "") + "/pipewire-0"
        let service = try ServiceHarness(rig: rig, workDir: workDir, extraEnvironment: ["PIPEWIRE_REMOTE": remote])
        defer { service.shutdown() }
        let track = path("mjpeg-track.mp4")
        try service.ok(["start", "--region", "640x360+0+0", "--no-mic", "--no-app-audio", "--output", track,
                        "--camera", "rk-test-camera", "--camera-track"])
        Thread.sleep(forTimeInterval: 2)
        let status = try service.ok(["status"])
        XCTAssertTrue(status.contains("camera: rk-test-camera on (MJPEG 640x480)"), "the camera's format, nothing skipped: \(status)")
        try service.ok(["stop"])
        let probe = try FFprobe.probe(track, countFrames: false)
        XCTAssertEqual(probe.video.count, 2, "screen and camera: \(probe)")
        guard probe.video.count == 2 else { return }
        XCTAssertEqual(probe.video[1].width, 640, "the camera at its own size")
        XCTAssertEqual(probe.video[1].height, 480)
        assertBars(try FrameSampler.frame(track, at: 1.5, videoStream: 1), in: PixelRect(x: 0, y: 0, width: 640, height: 480), "MJPEG camera track")
    }

    /// A camera that sends broken JPEGs (`camera-start MJPEG-CUT 640x480`: the moving bars'
    /// JPEGs through pipewiresink 0.3.65, which cuts every JPEG longer than its first short, no
    /// end marker, as lost USB packets leave a picture): an X11 recording by the service with
    /// `--camera-track` goes on; after 2.5 s `recordctl status` counts the skipped pictures
    /// (more than 10) and says why the last was skipped; the camera track shows the bars (the
    /// pictures that decoded stay on show while broken ones are skipped) and the service stops
    /// the recording normally.
    func testCorruptJPEGsAreSkippedAndCounted() throws {
        try wayland.rig(["camera-start", "MJPEG-CUT", "640x480"])
        let remote = (wayland.values["XDG_RUNTIME_DIR"] ?? "") + "/pipewire-0"
        let service = try ServiceHarness(rig: rig, workDir: workDir, extraEnvironment: ["PIPEWIRE_REMOTE": remote])
        defer { service.shutdown() }
        let track = path("mjpeg-cut.mp4")
        try service.ok(["start", "--region", "640x360+0+0", "--no-mic", "--no-app-audio", "--output", track,
                        "--camera", "rk-test-camera", "--camera-track"])
        // At least 3 s and until more than 10 broken pictures were counted (a slow machine takes
        // longer to bring the camera up), then 2 s more for good pictures to reach the track.
        var status = "", line = "", skipped = 0
        let deadline = Date().addingTimeInterval(30)
        Thread.sleep(forTimeInterval: 2.5)
        repeat {
            Thread.sleep(forTimeInterval: 0.5)
            status = try service.ok(["status"])
            line = status.split(separator: "\n").first { $0.hasPrefix("camera: rk-test-camera on (MJPEG 640x480; ") }.map(String.init) ?? ""
            skipped = line.split(separator: ";").dropFirst().first.flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
        } while skipped <= 10 && Date() < deadline
        XCTAssertGreaterThan(skipped, 10, "broken pictures skipped and counted: \(status)")
        Thread.sleep(forTimeInterval: 2)
        XCTAssertTrue(line.contains("last: a JPEG picture cut short (") && line.hasSuffix("bytes, no end marker))"), "why: \(line)")
        try service.ok(["stop"])
        let probe = try FFprobe.probe(track, countFrames: false)
        XCTAssertEqual(probe.video.count, 2, "screen and camera: \(probe)")
        guard probe.video.count == 2 else { return }
        // The last picture: the camera's first good picture may come late on a slow machine, and
        // a good picture stays on show while broken ones are skipped.
        let end = probe.video[1].duration ?? 4.5
        assertBars(try FrameSampler.frame(track, at: max(0.5, end - 0.2), videoStream: 1), in: PixelRect(x: 0, y: 0, width: 640, height: 480),
                   "the good pictures in the camera track")
    }

    /// Cameras that send planar 4:2:0 (NV12: a Y plane and interleaved U V; I420: three planes),
    /// each restarted at 640x480: `record --camera-track` records the camera at its own size with
    /// the bars' colours.
    func testNV12AndI420CamerasAreConverted() throws {
        let recordctl = try wayland.reachable(try rig.recordctlPath(), also: ["recordctl-engine"])
        let out = try wayland.workDirectory(name)
        defer { if testRun?.totalFailureCount == 0 { try? FileManager.default.removeItem(atPath: out) } }
        for format in ["NV12", "I420"] {
            try wayland.rig(["camera-start", format, "640x480"])
            try recordTrack(recordctl, out + "/\(format).mkv", "\(format) camera")
        }
    }

    /// `record --source portal --camera-track` for 2 s into `path`: two video streams, the
    /// camera's at 640x480 showing the bars.
    private func recordTrack(_ recordctl: String, _ path: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try wayland.waitForLastCastToEnd()  // the screen is still (WaylandRig.waitForLastCastToEnd)
        let (exe, argv) = wayland.command(recordctl, ["record", "--source", "portal", "--no-mic", "--no-app-audio", "--duration", "2",
                                                      "--output", path, "--camera", "rk-test-camera", "--camera-track"])
        let result = try ProcessRunner.run(exe, argv, timeout: 90)
        XCTAssertEqual(result.exitCode, 0, "\(what): \(result)", file: file, line: line)
        let probe = try FFprobe.probe(path, countFrames: false)
        XCTAssertEqual(probe.video.count, 2, "\(what): screen and camera: \(probe)", file: file, line: line)
        guard probe.video.count == 2 else { return }
        XCTAssertEqual(probe.video[1].width, 640, "\(what): the camera at its own size", file: file, line: line)
        XCTAssertEqual(probe.video[1].height, 480, file: file, line: line)
        assertBars(try FrameSampler.frame(path, at: 1.5, videoStream: 1), in: PixelRect(x: 0, y: 0, width: 640, height: 480), "\(what) track",
                   file: file, line: line)
    }
}
