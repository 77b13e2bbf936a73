import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Recording to a file, end to end: `recordctl record` on the rig's real Xvfb and PulseAudio, checked with
/// ffprobe and by decoding pixels and tones. Every subprocess is bounded; see docs/TESTING.md.
final class RecordToFileTests: EndToEndTestCase {
    let fps = 30.0
    let frame = 1.0 / 30
    let windowColour: UInt32 = 0x3366CC
    let otherColour: UInt32 = 0xCC9933

    // MARK: (a) a window of known colour, 5 s, MP4

    func testFiveSecondWindowRecordingToMP4() throws {
        let rc = try Recordctl(rig)
        let w = try window(size: (640, 480), position: (100, 100), color: windowColour)
        let out = path("window.mp4")
        let r = try rc.record(["--frame-rate-mode", "constant", "--window", w.id, "--duration", "5", "--output", out], timeout: 90)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        XCTAssertEqual(r.lastStdoutLine.map(resolved), resolved(out), "recordctl prints the output path last on stdout: \(r)")
        try assertRecording(out, width: 640, height: 480, seconds: 5, colour: w.rgb, container: "mp4")
    }

    /// The same, lighter, to Matroska.
    func testTwoSecondWindowRecordingToMKV() throws {
        let rc = try Recordctl(rig)
        let w = try window(size: (480, 320), position: (300, 200), color: otherColour)
        let out = path("window.mkv")
        let r = try rc.record(["--frame-rate-mode", "constant", "--window", w.id, "--duration", "2", "--format", "mkv", "--output", out], timeout: 60)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        XCTAssertEqual(r.lastStdoutLine.map(resolved), resolved(out), "\(r)")
        try assertRecording(out, width: 480, height: 320, seconds: 2, colour: w.rgb, container: "matroska")
    }

    // MARK: (b) region and whole screen

    func testRegionCapture() throws {
        let rc = try Recordctl(rig)
        // A big window under the whole region, and a small one inside it that pins the offset.
        let big = try window(size: (640, 480), position: (40, 40), color: windowColour)
        let small = try window(size: (80, 60), position: (200, 160), color: otherColour)
        let out = path("region.mp4")
        let r = try rc.record(["--frame-rate-mode", "constant", "--region", "320x240+100+100", "--duration", "2", "--output", out], timeout: 60)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        let probe = try FFprobe.probe(out)
        let v = try XCTUnwrap(probe.video.first, "\(probe)")
        XCTAssertEqual(v.width, 320, "\(probe)"); XCTAssertEqual(v.height, 240, "\(probe)")
        XCTAssertEqual(Double(v.frameCount ?? 0), 2 * fps, accuracy: 1, "\(probe)")
        for t in [0.5, 1.5] {
            let f = try FrameSampler.frame(out, at: t)
            // Region coordinates: the small window sits at (100, 60)-(180, 120).
            assertColour(f, PixelRect(x: 110, y: 70, width: 60, height: 40), is: small.rgb, "small window at \(t) s")
            assertColour(f, PixelRect(x: 10, y: 10, width: 80, height: 40), is: big.rgb, "big window, top left, at \(t) s")
            assertColour(f, PixelRect(x: 200, y: 140, width: 110, height: 90), is: big.rgb, "big window, bottom right, at \(t) s")
            // The small window's edges are exactly where they should be (to within chroma blur).
            assertColour(f, PixelRect(x: 90, y: 60, width: 6, height: 60), is: big.rgb, tolerance: 16, "left of the small window")
            assertColour(f, PixelRect(x: 104, y: 64, width: 6, height: 52), is: small.rgb, tolerance: 16, "left edge inside the small window")
            assertColour(f, PixelRect(x: 100, y: 50, width: 80, height: 6), is: big.rgb, tolerance: 16, "above the small window")
            assertColour(f, PixelRect(x: 104, y: 64, width: 72, height: 6), is: small.rgb, tolerance: 16, "top edge inside the small window")
        }
    }

    func testWholeScreenCapture() throws {
        let rc = try Recordctl(rig)
        let a = try window(size: (640, 480), position: (40, 40), color: windowColour)
        let b = try window(size: (200, 150), position: (1600, 850), color: otherColour)
        let out = path("screen.mp4")
        let r = try rc.record(["--frame-rate-mode", "constant", "--duration", "2", "--output", out], timeout: 60)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        let probe = try FFprobe.probe(out)
        let v = try XCTUnwrap(probe.video.first, "\(probe)")
        XCTAssertEqual(v.width, rig.screenWidth, "\(probe)"); XCTAssertEqual(v.height, rig.screenHeight, "\(probe)")
        XCTAssertEqual(Double(v.frameCount ?? 0), 2 * fps, accuracy: 1, "\(probe)")
        let f = try FrameSampler.frame(out, at: 1.0)
        assertColour(f, a.rect.inset(0.1), is: a.rgb, "window A in the whole-screen capture")
        assertColour(f, b.rect.inset(0.1), is: b.rgb, "window B in the whole-screen capture")
        assertColour(f, PixelRect(x: 1000, y: 100, width: 400, height: 200), is: RGB(hex: 0), "the (black) root window")
    }

    // MARK: (c) kill -9 leaves a playable file

    func testKillNineAfterFourSecondsLeavesAPlayableFile() throws {
        let rc = try Recordctl(rig)
        let w = try window(size: (640, 480), position: (100, 100), color: windowColour)
        let out = path("killed.mp4")
        let p = try rc.start(["--window", w.id, "--duration", "60", "--output", out])
        // Four seconds of recording, counted from its first fragment on disk (about one second
        // in), not from the command: on a loaded machine the start alone can take a second more.
        let deadline = Date(timeIntervalSinceNow: 30)
        while FileWriterProbe.size(of: out) == 0, p.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        Thread.sleep(forTimeInterval: 3)
        XCTAssertTrue(p.isRunning, "recordctl ended before it was killed: \(p.wait(timeout: 1))")
        p.send(SIGKILL)
        let r = p.wait(timeout: 10)
        XCTAssertEqual(r.signal, SIGKILL, "\(r)")
        guard FileManager.default.fileExists(atPath: out) else {
            XCTFail("no file at \(out) after kill -9; the directory holds \(directoryListing(workDir))")
            return
        }
        let probe = try FFprobe.probe(out)
        XCTAssertEqual(probe.video.count, 1, "\(probe)")
        XCTAssertEqual(probe.audio.count, 2, "\(probe)")
        for s in probe.streams {
            let span = try FFprobe.packetSpan(out, streamIndex: s.index)
            XCTAssertGreaterThanOrEqual(span.seconds, 2.0, "stream #\(s.index) (\(s.codecType)) holds only \(span.seconds) s after kill -9: \(probe)")
        }
        if probe.video.first != nil {
            let f = try FrameSampler.frame(out, at: 1.0)
            assertColour(f, f.fullRect.inset(0.1), is: w.rgb, "frame at 1 s of the killed recording")
        }
        if probe.audio.count >= 2 { try assertTones(out, probe, analyse: 1.0) }
    }

    // MARK: (d) bad input: documented exit code, a clear message, no stray files

    func testUnwritableOutputPath() throws {
        try assertRejected(["--duration", "2", "--output", "/proc/x.mp4"],
                           exitCode: Recordctl.Exit.cantCreate, mentions: ["/proc/x.mp4"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/proc/x.mp4"))
    }

    func testMissingOutputDirectory() throws {
        let out = path("no/such/dir/x.mp4")
        try assertRejected(["--duration", "2", "--output", out], exitCode: Recordctl.Exit.cantCreate, mentions: [out, "no/such/dir"])
    }

    func testExistingOutputIsNotOverwritten() throws {
        let out = path("existing.mp4")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: out))
        try assertRejected(["--duration", "2", "--output", out], exitCode: Recordctl.Exit.cantCreate,
                           mentions: ["existing.mp4", "exist"])
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "precious", "the existing file was changed")
    }

    func testUnknownWindow() throws {
        try assertRejected(["--window", "no-such-window-xyz", "--duration", "2", "--output", path("w.mp4")],
                           exitCode: Recordctl.Exit.unavailable, mentions: ["no-such-window-xyz"])
    }

    func testMalformedRegion() throws {
        try assertRejected(["--region", "12x", "--duration", "2", "--output", path("r.mp4")],
                           exitCode: Recordctl.Exit.usage, mentions: ["12x", "region"])
    }

    func testMissingDisplay() throws {
        try assertRejected(["--duration", "2", "--output", path("d.mp4")],
                           environment: rig.environment(["DISPLAY": nil]),
                           exitCode: Recordctl.Exit.unavailable, mentions: ["DISPLAY"])
    }

    // MARK: Helpers

    private func resolved(_ p: String) -> String {
        URL(fileURLWithPath: p).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Checks a finished recording: one H.264 stream of the given size, two AAC tracks, the
    /// duration to within one frame, fps x duration frames to within one, the colour, the tones.
    private func assertRecording(_ out: String, width: Int, height: Int, seconds: Double, colour: RGB,
                                 container: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = try FFprobe.probe(out)
        XCTAssertTrue(probe.formatName.contains(container), "container \(probe.formatName), want \(container)", file: file, line: line)
        XCTAssertEqual(probe.video.count, 1, "want one video stream: \(probe)", file: file, line: line)
        XCTAssertEqual(probe.audio.count, 2, "want two audio streams (app, mic): \(probe)", file: file, line: line)
        XCTAssertEqual(probe.streams.count, 3, "want no other streams: \(probe)", file: file, line: line)
        guard let v = probe.video.first else { return }
        XCTAssertEqual(v.codecName, "h264", "\(probe)", file: file, line: line)
        XCTAssertEqual(v.width, width, "video width: \(probe)", file: file, line: line)
        XCTAssertEqual(v.height, height, "video height: \(probe)", file: file, line: line)
        XCTAssertEqual(v.pixFmt, "yuv420p", "\(probe)", file: file, line: line)
        let vd = try XCTUnwrap(v.duration ?? probe.formatDuration, "no video duration: \(probe)", file: file, line: line)
        XCTAssertEqual(vd, seconds, accuracy: frame + 0.001, "video duration within one frame: \(probe)", file: file, line: line)
        XCTAssertEqual(Double(v.frameCount ?? -1), fps * seconds, accuracy: 1, "frame count = fps x duration ± 1: \(probe)",
                       file: file, line: line)
        if let fd = probe.formatDuration {
            // The file as a whole: one frame, plus one AAC frame (21 ms) of audio rounding.
            XCTAssertEqual(fd, seconds, accuracy: frame + 1024.0 / 48000 + 0.001, "file duration: \(probe)", file: file, line: line)
        }
        for a in probe.audio {
            XCTAssertEqual(a.codecName, "aac", "\(probe)", file: file, line: line)
            XCTAssertEqual(a.sampleRate, 48000, "\(probe)", file: file, line: line)
            XCTAssertEqual(a.channels, 2, "\(probe)", file: file, line: line)
            if let d = a.duration {
                XCTAssertEqual(d, seconds, accuracy: frame + 1024.0 / 48000 + 0.001, "audio #\(a.index) duration: \(probe)",
                               file: file, line: line)
            }
        }
        for t in [0.2, seconds / 2, seconds - 0.2] {
            let f = try FrameSampler.frame(out, at: t)
            assertColour(f, f.fullRect.inset(0.1), is: colour, "decoded frame at \(t) s", file: file, line: line)
        }
        try assertTones(out, probe, file: file, line: line)
    }

    /// recordctl rejects `arguments`: the documented exit code, a clear message on stderr that
    /// mentions one of `mentions`, no crash, nothing left behind in the directories it could use.
    private func assertRejected(_ arguments: [String], environment: [String: String]? = nil, exitCode: Int32,
                                mentions: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let rc = try Recordctl(rig)
        // Directories a recorder could write into: the output's (the work dir), the working
        // directory, and HOME / XDG_VIDEOS_DIR (the default output location).
        let cwd = path("cwd"), home = path("home"), videos = path("videos")
        for d in [cwd, home, videos] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        var env = environment ?? rig.environment
        env["HOME"] = home
        env["XDG_VIDEOS_DIR"] = videos
        let before = directoryListing(workDir)
        let r = try rc.record(arguments, environment: env, currentDirectory: cwd, timeout: 30)
        XCTAssertFalse(r.timedOut, "recordctl did not give up: \(r)", file: file, line: line)
        XCTAssertEqual(r.exitCode, exitCode, "exit code for \(arguments): \(r)", file: file, line: line)
        let message = r.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(message.isEmpty, "no message on stderr: \(r)", file: file, line: line)
        XCTAssertTrue(mentions.contains { message.lowercased().contains($0.lowercased()) },
                      "stderr should name the problem (one of \(mentions)): \(message)", file: file, line: line)
        for crash in ["Fatal error", "Stack dump", "Segmentation fault", "Illegal instruction"] {
            XCTAssertFalse(message.contains(crash), "recordctl crashed: \(message)", file: file, line: line)
        }
        XCTAssertTrue(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
                      "nothing on stdout when nothing was recorded: \(r)", file: file, line: line)
        XCTAssertEqual(directoryListing(workDir), before, "stray files left behind", file: file, line: line)
    }
}

/// The size of a file being written (0 while it is missing or empty).
private enum FileWriterProbe {
    static func size(of path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
