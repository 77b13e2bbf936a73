import Foundation
import XCTest

/// Checks the rig and the test helpers themselves, with FFmpeg's own command line as a reference
/// recorder. These need no recordctl: when a RecordToFileTests case fails, these tell whether the
/// rig, the helpers or the recorder is at fault.
final class RigSelfTests: EndToEndTestCase {
    func testPulseAudioDefaultsAreTheRigSinks() throws {
        let r = try ProcessRunner.run("pactl", ["info"], environment: rig.environment, timeout: 10)
        XCTAssertEqual(r.exitCode, 0, "\(r)")
        XCTAssertTrue(r.stdout.contains("Default Sink: app_sink"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Default Source: mic_sink.monitor"), r.stdout)
    }

    func testWindowIsWhereAndWhatItSays() throws {
        let w = try window(size: (320, 200), position: (700, 300), color: 0xCC9933)
        XCTAssertTrue(w.id.hasPrefix("0x"))
        let g = try w.geometry()
        XCTAssertEqual(g.x, 700); XCTAssertEqual(g.y, 300)
        XCTAssertEqual(g.width, 320); XCTAssertEqual(g.height, 200)
        let shot = try FrameSampler.grabScreen(display: rig.display, w.rect)
        assertColour(shot, shot.fullRect, is: w.rgb, tolerance: 1, "x11grab of the window")
        let name = try ProcessRunner.run("xprop", ["-id", w.id, "_NET_WM_NAME", "WM_NAME"], timeout: 10)
        XCTAssertTrue(name.stdout.contains("\"\(w.name)\""), name.stdout)
    }

    func testWindowFlashesAndPrintsMonotonicTimes() throws {
        let w = try window(size: (100, 100), position: (1700, 900), color: 0x000080,
                           extraArguments: ["--flash-every", "0.5", "--flash-color", "FFFFFF"])
        var times: [Double] = []
        let deadline = Date().addingTimeInterval(5)
        while times.count < 3 && Date() < deadline {
            usleep(100_000)
            times = w.process.stdoutSoFar.split(separator: "\n").compactMap { line in
                line.hasPrefix("flash ") ? Double(line.dropFirst(6)) : nil
            }
        }
        XCTAssertGreaterThanOrEqual(times.count, 3, "flash lines: \(w.process.stdoutSoFar)")
        for (a, b) in zip(times, times.dropFirst()) {
            XCTAssertEqual(b - a, 0.5, accuracy: 0.1, "flash interval")
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        if let last = times.last {
            XCTAssertEqual(last, Double(now.tv_sec) + Double(now.tv_nsec) / 1e9, accuracy: 5,
                           "flash times are CLOCK_MONOTONIC")
        }
    }

    /// The counter window, recorded by FFmpeg at the counter's own rate, reads back as a run of
    /// increasing numbers (what split and trim tests rely on to find lost or repeated frames).
    func testCounterWindowReadsBackFromAnFFmpegRecording() throws {
        let w = try window(size: (320, 240), position: (1000, 100), color: 0x3366CC, extraArguments: ["--counter", "30"])
        XCTAssertTrue(w.process.stdoutSoFar.contains("counter start "), w.process.stdoutSoFar)
        let out = path("counter.mkv")
        let r = try ProcessRunner.run("ffmpeg", [
            "-nostdin", "-hide_banner", "-loglevel", "error",
            "-f", "x11grab", "-draw_mouse", "0", "-framerate", "30", "-video_size", "320x240",
            "-i", "\(rig.display)+\(w.rect.x),\(w.rect.y)", "-t", "2",
            "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", out,
        ], timeout: 60)
        XCTAssertEqual(r.exitCode, 0, "\(r)")
        let values = try FrameCounter.values(out)
        XCTAssertGreaterThanOrEqual(values.count, 50, "frames: \(values.count)")
        let readable = values.compactMap { $0 }
        XCTAssertGreaterThanOrEqual(Double(readable.count), 0.95 * Double(values.count), "readable counters: \(values)")
        XCTAssertGreaterThan(readable.first ?? 0, 0, "the counter had started before the recording: \(values)")
        // x11grab may take a tick twice or miss one (its 30 Hz clock beats against the window's,
        // more so on a loaded machine: 12 of 59 steps were 0 or 2 once); mostly it steps by one.
        let steps = zip(readable, readable.dropFirst()).map { $1 - $0 }
        XCTAssertGreaterThanOrEqual(Double(steps.filter { $0 == 1 }.count), 0.7 * Double(steps.count), "steps: \(steps)")
        XCTAssertTrue(steps.allSatisfy { $0 >= 0 && $0 <= 5 }, "the counter never goes back or jumps: \(steps)")
    }

    /// FFmpeg records the window and both sinks; the helpers must see exactly what it recorded.
    func testHelpersAgainstAnFFmpegRecording() throws {
        let w = try window(size: (640, 480), position: (100, 100), color: 0x3366CC)
        let out = path("ffmpeg-reference.mp4")
        let r = try ProcessRunner.run("ffmpeg", [
            "-nostdin", "-hide_banner", "-loglevel", "error",
            "-f", "x11grab", "-draw_mouse", "0", "-framerate", "30", "-video_size", "640x480",
            "-i", "\(rig.display)+\(w.rect.x),\(w.rect.y)",
            "-f", "pulse", "-i", "app_sink.monitor", "-f", "pulse", "-i", "mic_sink.monitor",
            "-map", "0", "-map", "1", "-map", "2",
            "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "160k", "-t", "2", out,
        ], environment: rig.environment, timeout: 60)
        XCTAssertEqual(r.exitCode, 0, "\(r)")
        let probe = try FFprobe.probe(out)
        XCTAssertEqual(probe.video.count, 1, "\(probe)")
        XCTAssertEqual(probe.audio.count, 2, "\(probe)")
        let v = try XCTUnwrap(probe.video.first)
        XCTAssertEqual(v.codecName, "h264")
        XCTAssertEqual(v.width, 640); XCTAssertEqual(v.height, 480)
        XCTAssertEqual(v.pixFmt, "yuv420p")
        // FFmpeg is the reference recorder here, not the subject: its x11grab with `-t 2` gives
        // 60–62 frames depending on when its first grab lands.
        XCTAssertEqual(Double(v.frameCount ?? 0), 60, accuracy: 3, "\(probe)")
        XCTAssertEqual(v.duration ?? 0, 2, accuracy: 1.0 / 30 + 0.001, "\(probe)")
        for a in probe.audio {
            XCTAssertEqual(a.codecName, "aac"); XCTAssertEqual(a.sampleRate, 48000); XCTAssertEqual(a.channels, 2)
        }
        let frame = try FrameSampler.frame(out, at: 1.0)
        assertColour(frame, frame.fullRect.inset(0.1), is: w.rgb, "H.264 of the window")
        try assertTones(out, probe)
        let span = try FFprobe.packetSpan(out, streamIndex: v.index)
        XCTAssertEqual(span.seconds, 2, accuracy: 0.1, "video packet span")
    }
}
