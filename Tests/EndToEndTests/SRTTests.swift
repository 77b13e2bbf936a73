import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// SRT output (docs/RTMP.md, "SRT"): `--srt` streams MPEG-TS over SRT (caller mode) to real listeners on
/// 127.0.0.1, `srt-live-transmit` (Debian's srt-tools) with a passphrase and FFmpeg, and what
/// arrived is decoded: frames, duration, the window's colour, both tones. A wrong passphrase
/// ends only the SRT output, with a message that says so, and no secret appears anywhere.
/// Ports 19611-19613 (this branch's range).
final class SRTTests: EndToEndTestCase {
    let fps = 30.0
    let windowColour: UInt32 = 0x3366CC
    let passphrase = "e2e-srt-pass-\(UUID().uuidString.prefix(6).lowercased())"
    let streamID = "e2e-stream-\(UUID().uuidString.prefix(6).lowercased())"

    func testEncryptedStreamReachesSrtLiveTransmitWhole() throws {
        let received = path("srt-live-transmit.ts")
        let listener = try RunningProcess("sh", ["-c", "exec srt-live-transmit -q -a no -t 90 "
            + "'srt://127.0.0.1:19611?mode=listener&passphrase=\(passphrase)' file://con > '\(received)'"])
        defer { if listener.isRunning { listener.send(SIGTERM) }; _ = listener.wait(timeout: 5) }
        Thread.sleep(forTimeInterval: 0.5)
        let url = "srt://127.0.0.1:19611?streamid=\(streamID)&passphrase=\(passphrase)&latency=200000"
        let r = try record(url: url, seconds: 6)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        assertNoSecret(in: r.stdout + r.stderr)
        _ = listener.wait(timeout: 10)
        try assertArrived(received, seconds: 6)
    }

    func testStreamReachesAnFFmpegListener() throws {
        let received = path("ffmpeg-listener.ts")
        let listener = try RunningProcess("ffmpeg", ["-v", "error", "-y", "-i", "srt://127.0.0.1:19612?mode=listener&listen_timeout=60000000",
                                                     "-map", "0", "-c", "copy", "-f", "mpegts", received])
        defer { if listener.isRunning { listener.send(SIGTERM) }; _ = listener.wait(timeout: 5) }
        Thread.sleep(forTimeInterval: 0.5)
        let r = try record(url: "srt://127.0.0.1:19612?streamid=\(streamID)", seconds: 6)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        assertNoSecret(in: r.stdout + r.stderr)
        let done = listener.wait(timeout: 15)
        XCTAssertEqual(done.exitCode, 0, "ffmpeg ends at the end of the stream: \(done)")
        try assertArrived(received, seconds: 6)
    }

    func testWrongPassphraseEndsOnlyTheStreamAndSaysSo() throws {
        let listener = try RunningProcess("srt-live-transmit", ["-q", "-a", "no", "-t", "60",
                                                                "srt://127.0.0.1:19613?mode=listener&passphrase=the-right-one-123", "file://con"])
        defer { if listener.isRunning { listener.send(SIGTERM) }; _ = listener.wait(timeout: 5) }
        Thread.sleep(forTimeInterval: 0.5)
        let out = path("file.mp4")
        let r = try record(url: "srt://127.0.0.1:19613?streamid=\(streamID)&passphrase=\(passphrase)", seconds: 3, output: out)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.software, "a failed output is a failed recording (70): \(r)")
        XCTAssertTrue(r.stderr.contains("rejected the connection: check that the passphrase"), "says why: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("srt://127.0.0.1:19613"), "names the listener: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("****"), "with its secrets masked: \(r.stderr)")
        assertNoSecret(in: r.stdout + r.stderr)
        let probe = try FFprobe.probe(out)
        XCTAssertEqual(probe.video.first?.duration ?? 0, 3, accuracy: 0.15, "the file is complete: \(probe)")
    }

    /// The listener goes away 5 s into a 14 s recording and another comes up on the same port
    /// a second later: the output reconnects by itself (back-off: first attempt after about 2 s)
    /// and the second listener receives the rest, from a key frame; the recording ends well.
    func testStreamReconnectsToAListenerThatCameBack() throws {
        let first = path("first.ts"), second = path("second.ts")
        func listen(into file: String) throws -> RunningProcess {
            try RunningProcess("sh", ["-c", "exec srt-live-transmit -q -a no -t 60 'srt://127.0.0.1:19614?mode=listener' file://con > '\(file)'"])
        }
        let one = try listen(into: first)
        defer { if one.isRunning { one.send(SIGTERM) }; _ = one.wait(timeout: 5) }
        Thread.sleep(forTimeInterval: 0.5)
        let rc = try Recordctl(rig)
        let w = try window(size: (640, 480), position: (100, 100), color: windowColour)
        let recording = try rc.start(["--frame-rate-mode", "constant", "--window", w.id, "--duration", "14", "--output", path("beside.mp4"),
                                      "--srt", "srt://127.0.0.1:19614?streamid=\(streamID)"])
        Thread.sleep(forTimeInterval: 5)
        one.send(SIGTERM)
        _ = one.wait(timeout: 5)
        Thread.sleep(forTimeInterval: 1)
        let two = try listen(into: second)
        defer { if two.isRunning { two.send(SIGTERM) }; _ = two.wait(timeout: 5) }
        let r = recording.wait(timeout: 90)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "reconnected, so the recording ends well: \(r)")
        assertNoSecret(in: r.stdout + r.stderr)
        _ = two.wait(timeout: 10)
        for (file, atLeast) in [(first, 2.0), (second, 4.0)] {
            let probe = try FFprobe.probe(file)
            let v = try XCTUnwrap(probe.video.first, "\(file): \(probe)")
            let span = try FFprobe.packetSpan(file, streamIndex: v.index)
            XCTAssertGreaterThan(Double(span.count), atLeast * fps * 0.9, "\(file): \(span)")
            let keyFirst = try ProcessRunner.output("ffprobe", ["-v", "error", "-select_streams", "v", "-read_intervals", "%+#1",
                                                                "-show_entries", "packet=flags", "-of", "csv=p=0", file])
            XCTAssertTrue(String(decoding: keyFirst, as: UTF8.self).hasPrefix("K"), "\(file) starts with a key frame")
            let f = try FrameSampler.frame(file, at: 1.0)
            assertColour(f, f.fullRect.inset(0.1), is: RGB(hex: windowColour), "\(file) at 1 s")
        }
    }

    // MARK: Helpers

    private func record(url: String, seconds: Int, output: String? = nil) throws -> ProcessResult {
        let rc = try Recordctl(rig)
        let w = try window(size: (640, 480), position: (100, 100), color: windowColour)
        let out = output ?? path("beside.mp4")
        return try rc.record(["--frame-rate-mode", "constant", "--window", w.id, "--duration", String(seconds), "--output", out, "--srt", url],
                             timeout: 90)
    }

    /// The MPEG-TS that arrived: H.264 640x480 and one AAC track, about `seconds` long with
    /// at least 90 % of its frames, the window's colour in the middle, both tones in the mix.
    private func assertArrived(_ ts: String, seconds: Double, line: UInt = #line) throws {
        let probe = try FFprobe.probe(ts)
        verbose("received: \(probe)")
        XCTAssertTrue(probe.formatName.contains("mpegts"), "\(probe)", line: line)
        XCTAssertEqual(probe.video.map(\.codecName), ["h264"], "\(probe)", line: line)
        XCTAssertEqual(probe.audio.map(\.codecName), ["aac"], "\(probe)", line: line)
        let v = try XCTUnwrap(probe.video.first, line: line)
        XCTAssertEqual(v.width, 640, line: line); XCTAssertEqual(v.height, 480, line: line)
        let span = try FFprobe.packetSpan(ts, streamIndex: v.index)
        XCTAssertGreaterThan(Double(span.count), seconds * fps * 0.9, "frames that arrived: \(span)", line: line)
        XCTAssertEqual(span.seconds, seconds, accuracy: 0.5, "video duration: \(span)", line: line)
        let f = try FrameSampler.frame(ts, at: seconds / 2)
        assertColour(f, f.fullRect.inset(0.1), is: RGB(hex: windowColour), "the frame in the middle", line: line)
        let tones = try ToneAnalyzer.analyze(ts, audioStream: 0, candidates: [rig.appToneHz, rig.micToneHz, 700], start: 0.5)
        let app = tones.power[rig.appToneHz] ?? 0, mic = tones.power[rig.micToneHz] ?? 0, none = max(tones.power[700] ?? 0, 1e-12)
        XCTAssertGreaterThan(tones.seconds, seconds - 1.5, "\(tones)", line: line)
        XCTAssertGreaterThan(10 * log10(app / none), 20, "the app tone arrived: \(tones)", line: line)
        XCTAssertGreaterThan(10 * log10(mic / none), 20, "the mic tone arrived: \(tones)", line: line)
    }

    private func assertNoSecret(in text: String, line: UInt = #line) {
        XCTAssertFalse(text.contains(passphrase), "the passphrase appears: \(text)", line: line)
        XCTAssertFalse(text.contains(streamID), "the stream id appears: \(text)", line: line)
    }
}
