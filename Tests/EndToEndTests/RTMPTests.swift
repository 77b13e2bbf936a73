import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// End to end (docs/RTMP.md): `recordctl record --rtmp` and `recordctl start --rtmp` against the
/// rig's nginx-rtmp, checked on what the server recorded (ffprobe, decoded pixels and tones).
/// The in-process tests (RecordKitTests/RTMPBroadcastTests) cover the reconnection and status
/// over time; these cover what a user sees: the stream, the file beside it, the messages, and a
/// stream key that appears nowhere.
final class RTMPTests: EndToEndTestCase {
    let fps = 30.0
    let windowColour: UInt32 = 0xCC3333

    // MARK: A 10 s broadcast, read back from the server

    func testTenSecondBroadcastIsRecordedByTheServerBesideTheFile() throws {
        let (url, recordDir) = try server()
        let key = "testkey-e2e-\(UUID().uuidString.prefix(8).lowercased())"
        defer { RTMPServerRecordings.remove(key, in: recordDir) }
        let rc = try Recordctl(rig)
        let w = try window(size: (640, 480), position: (100, 100), color: windowColour)
        let out = path("broadcast.mp4")
        let r = try rc.record(["--frame-rate-mode", "constant", "--window", w.id, "--duration", "10", "--output", out, "--rtmp", "\(url)/\(key)"], timeout: 90)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        XCTAssertEqual(r.lastStdoutLine, out, "the file is printed last: \(r)")
        assertNoKey(key, in: r.stdout + r.stderr)

        let recordings = RTMPServerRecordings.wait(for: key, in: recordDir, count: 1)
        XCTAssertEqual(recordings.count, 1, "one publish, one server recording: \(recordings)")
        let flv = try XCTUnwrap(recordings.first)
        try? FileManager.default.copyItem(atPath: flv, toPath: path("server.flv"))  // kept if the test fails
        let probe = try FFprobe.probe(flv)
        verbose("server recording: \(probe)")
        XCTAssertTrue(probe.formatName.contains("flv"), "\(probe)")
        XCTAssertEqual(probe.video.map(\.codecName), ["h264"], "\(probe)")
        XCTAssertEqual(probe.audio.map(\.codecName), ["aac"], "one AAC track, app and mic mixed: \(probe)")
        let v = try XCTUnwrap(probe.video.first)
        XCTAssertEqual(v.width, 640); XCTAssertEqual(v.height, 480); XCTAssertEqual(v.pixFmt, "yuv420p")
        let a = try XCTUnwrap(probe.audio.first)
        XCTAssertEqual(a.sampleRate, 48_000); XCTAssertEqual(a.channels, 2)

        // Duration and frames: 10 s at 30 fps, and exactly the frames of the file (one encode):
        // nothing was lost between the encoder and the server. The absolute count allows 3 %:
        // on a machine loaded by other work the capture itself misses ticks, with or without RTMP
        // (measured at a load of 5 on 2 cores: 296 and 298 frames of 301 in 10 s).
        let frames = try XCTUnwrap(v.frameCount, "\(probe)")
        XCTAssertEqual(Double(frames), fps * 10, accuracy: 9, "frames the server recorded: \(probe)")
        let videoSpan = try FFprobe.packetSpan(flv, streamIndex: v.index)
        XCTAssertEqual(videoSpan.seconds + 1 / fps, 10, accuracy: 0.1, "video duration on the server: \(videoSpan)")
        let audioSpan = try FFprobe.packetSpan(flv, streamIndex: a.index)
        XCTAssertEqual(audioSpan.seconds, 10, accuracy: 0.1, "audio duration on the server: \(audioSpan)")
        let file = try FFprobe.probe(out)
        XCTAssertEqual(file.video.first?.frameCount, frames, "the file has the stream's encode: \(file)")
        XCTAssertEqual(file.audio.count, 2, "the file keeps app and mic apart: \(file)")

        // Content: the window's colour throughout; both tones in the one audio track.
        for t in [0.5, 5.0, 9.5] {
            let f = try FrameSampler.frame(flv, at: t)
            assertColour(f, f.fullRect.inset(0.1), is: w.rgb, "server's frame at \(t) s")
        }
        let tones = try ToneAnalyzer.analyze(flv, audioStream: 0, candidates: [rig.appToneHz, rig.micToneHz, 700], start: 0.5)
        verbose("server's audio: \(tones)")
        XCTAssertGreaterThan(tones.seconds, 9, "\(tones)")
        XCTAssertGreaterThan(tones.rmsDBFS, -40, "the mixed track is audible: \(tones)")
        let app = tones.power[rig.appToneHz] ?? 0, mic = tones.power[rig.micToneHz] ?? 0, none = max(tones.power[700] ?? 0, 1e-12)
        XCTAssertGreaterThan(10 * log10(app / none), 20, "the app tone is in the mix: \(tones)")
        XCTAssertGreaterThan(10 * log10(mic / none), 20, "the mic tone is in the mix: \(tones)")
        XCTAssertLessThan(abs(10 * log10(app / max(mic, 1e-12))), 6, "app and mic mixed at equal level: \(tones)")
        try assertTones(out, file)
    }

    // MARK: Failures end only the RTMP handler

    func testWrongKeyEndsOnlyTheStream() throws {
        let (url, _) = try server()
        try assertStreamFails(url: "\(url)/wrongkey-e2e-s3cr3t", key: "wrongkey-e2e-s3cr3t",
                              says: ["refused to publish", "check the stream key"], masked: "\(url)/****")
    }

    func testUnknownHostEndsOnlyTheStream() throws {
        try assertStreamFails(url: "rtmp://rk-e2e.invalid/live/testkey-e2e-s3cr3t", key: "testkey-e2e-s3cr3t",
                              says: ["the host 'rk-e2e.invalid' is unknown"], masked: "rtmp://rk-e2e.invalid/live/****")
    }

    func testRefusedPortEndsOnlyTheStream() throws {
        try assertStreamFails(url: "rtmp://127.0.0.1:1/live/testkey-e2e-s3cr3t", key: "testkey-e2e-s3cr3t",
                              says: ["127.0.0.1:1 refused the connection"], masked: "rtmp://127.0.0.1:1/live/****")
    }

    func testMalformedURLIsABadArgument() throws {
        let rc = try Recordctl(rig)
        let r = try rc.record(["--duration", "2", "--output", path("x.mp4"), "--rtmp", "rtmp://127.0.0.1/s3cr3t-only"], timeout: 30)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.usage, "\(r)")
        XCTAssertTrue(r.stderr.contains("no stream key"), "\(r)")
        assertNoKey("s3cr3t-only", in: r.stdout + r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.mp4")), "nothing recorded")
    }

    // MARK: The service: status and events

    func testServiceStatusShowsTheStreamMaskedAndItsFailure() throws {
        let (url, recordDir) = try server()
        let service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { service.shutdown() }
        let good = "testkey-e2e-svc-\(UUID().uuidString.prefix(8).lowercased())"
        let bad = "wrongkey-e2e-svc-s3cr3t"
        defer { RTMPServerRecordings.remove(good, in: recordDir) }
        let w = try window(size: (320, 240), position: (100, 100), color: windowColour)
        let events = try service.watchEvents()
        let out = path("service.mp4")
        try service.ok(["start", "--window", w.id, "--output", out, "--rtmp", "\(url)/\(good)", "--rtmp", "\(url)/\(bad)"])
        // (rtmp-2's `connecting` is an event too: wait for the one that says it failed.)
        let failed = events.waitFor(timeout: 10) {
            $0["kind"] as? String == "handler" && $0["handler"] as? String == "rtmp-2" && ($0["reason"] as? String)?.contains("refused to publish") == true
        }
        XCTAssertNotNil(failed, "an event says rtmp-2 failed")
        XCTAssertTrue((failed?["reason"] as? String)?.contains("refused to publish") ?? false, "\(failed ?? [:])")
        Thread.sleep(forTimeInterval: 2)

        let text = try service.ok(["status"])
        let json = try service.ok(["status", "--json"])
        verbose("status:\n\(text)")
        XCTAssertTrue(text.contains("video encoders: 1"), "file and both streams share one encoder:\n\(text)")
        XCTAssertTrue(text.contains("audio encoders: 3"), "app and mic for the file, their mix for both streams:\n\(text)")
        let lines = text.split(separator: "\n").map(String.init)
        let first = try XCTUnwrap(lines.first { $0.hasPrefix("handler rtmp:") }, text)
        XCTAssertTrue(first.contains("running") && first.contains("state live") && first.contains("url \(url)/****"), first)
        XCTAssertTrue(first.contains("bytesSent") && first.contains("bitrateKbps") && first.contains("dropped 0"), first)
        let second = try XCTUnwrap(lines.first { $0.hasPrefix("handler rtmp-2:") }, text)
        XCTAssertTrue(second.contains("failed") && second.contains("state failed") && second.contains("refused to publish"), second)
        XCTAssertTrue(lines.contains { $0.hasPrefix("handler file:") && $0.contains("running") }, text)

        // An endpoint failed: stop lists it with its error and does not report plain success (exit 70).
        let stop = try service.ctl(["stop"])
        XCTAssertEqual(stop.exitCode, 70, "\(stop)")
        XCTAssertTrue(stop.stderr.contains("rtmp-2") && stop.stderr.contains("refused to publish"), "stop shows the endpoint's error: \(stop)")
        let stopped = stop.stdout + stop.stderr
        XCTAssertTrue(stopped.contains(out), "stop prints the file: \(stopped)")
        XCTAssertTrue(stopped.contains("\(url)/****"), "and the stream, masked: \(stopped)")
        let log = (try? String(contentsOfFile: service.stateDir + "/recordkit/recordd.log", encoding: .utf8)) ?? ""
        let all = text + json + stopped + log + events.finish().map { "\($0)" }.joined()
        assertNoKey(good, in: all)
        assertNoKey(bad, in: all)
        XCTAssertEqual(RTMPServerRecordings.wait(for: good, in: recordDir, count: 1).count, 1, "the good stream reached the server")
        let file = try FFprobe.probe(out, countFrames: false)
        XCTAssertEqual(file.video.count, 1, "\(file)")
        XCTAssertEqual(file.audio.count, 2, "\(file)")
    }

    /// With one audio track, the "mixed" track the stream wants is that track's PCM: it is
    /// encoded once for the file and the stream (status counts one audio encoder), and both
    /// carry the app tone and nothing of the microphone's.
    func testOneAudioTrackIsEncodedOnceForTheFileAndTheStream() throws {
        let (url, recordDir) = try server()
        let service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { service.shutdown() }
        let key = "testkey-e2e-once-\(UUID().uuidString.prefix(8).lowercased())"
        defer { RTMPServerRecordings.remove(key, in: recordDir) }
        let w = try window(size: (320, 240), position: (100, 100), color: windowColour)
        let out = path("once.mp4")
        try service.ok(["start", "--window", w.id, "--no-mic", "--output", out, "--rtmp", "\(url)/\(key)"])
        Thread.sleep(forTimeInterval: 4)
        let text = try service.ok(["status"])
        verbose("status:\n\(text)")
        XCTAssertTrue(text.contains("video encoders: 1, audio encoders: 1"), "one encode of each stream for the file and the stream:\n\(text)")
        try service.ok(["stop"])
        let flv = try XCTUnwrap(RTMPServerRecordings.wait(for: key, in: recordDir, count: 1).first, "the stream reached the server")
        for (what, path) in [("file", out), ("stream", flv)] {
            let tones = try ToneAnalyzer.analyze(path, audioStream: 0, candidates: [rig.appToneHz, rig.micToneHz, 700], start: 0.5)
            verbose("\(what): \(tones)")
            XCTAssertGreaterThan(tones.seconds, 2, "\(what): \(tones)")
            let app = tones.power[rig.appToneHz] ?? 0, mic = tones.power[rig.micToneHz] ?? 0, none = max(tones.power[700] ?? 0, 1e-12)
            XCTAssertGreaterThan(10 * log10(app / none), 20, "\(what) carries the app tone: \(tones)")
            XCTAssertLessThan(10 * log10(max(mic, 1e-12) / none), 10, "\(what) has no microphone: \(tones)")
        }
        XCTAssertEqual(try FFprobe.probe(out, countFrames: false).audio.count, 1, "the file has the one track")
    }

    // MARK: - Helpers

    private func server() throws -> (url: String, recordDir: String) {
        guard let url = rig.rtmpURL, !url.isEmpty, let dir = rig.rtmpRecordDir, !dir.isEmpty else {
            throw RigError(description: "RK_RTMP_URL / RK_RTMP_REC_DIR not set: run scripts/test.sh (it starts the rig's nginx-rtmp)")
        }
        return (url, dir)
    }

    /// `record --rtmp url` beside a file, for 3 s: the stream fails with a message that says
    /// `says` and shows `masked`, the file is complete, the key appears nowhere, exit code 70.
    private func assertStreamFails(url: String, key: String, says: [String], masked: String,
                                   file fileName: StaticString = #filePath, line: UInt = #line) throws {
        let rc = try Recordctl(rig)
        let w = try window(size: (320, 240), position: (100, 100), color: windowColour)
        let out = path("file.mp4")
        let r = try rc.record(["--frame-rate-mode", "constant", "--window", w.id, "--duration", "3", "--output", out, "--rtmp", url], timeout: 60)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.software, "a failed handler is a failed recording (70): \(r)", file: fileName, line: line)
        XCTAssertEqual(r.lastStdoutLine, out, "the file is still printed: \(r)", file: fileName, line: line)
        for phrase in says + [masked, "handler 'rtmp'"] {  // the first endpoint's handler is "rtmp", the next "rtmp-2"
            XCTAssertTrue(r.stderr.contains(phrase), "stderr should say '\(phrase)': \(r)", file: fileName, line: line)
        }
        assertNoKey(key, in: r.stdout + r.stderr, file: fileName, line: line)
        let probe = try FFprobe.probe(out)
        XCTAssertEqual(probe.video.count, 1, "\(probe)", file: fileName, line: line)
        XCTAssertEqual(probe.audio.count, 2, "\(probe)", file: fileName, line: line)
        let v = try XCTUnwrap(probe.video.first, file: fileName, line: line)
        XCTAssertEqual(v.duration ?? 0, 3, accuracy: 0.1, "the file is complete: \(probe)", file: fileName, line: line)
        // Complete from start to end (exact frame counts are RecordToFileTests' business; a
        // machine loaded by other work misses capture ticks with or without RTMP).
        let span = try FFprobe.packetSpan(out, streamIndex: v.index)
        XCTAssertLessThan(span.first, 0.05, "video starts at 0: \(span)", file: fileName, line: line)
        XCTAssertGreaterThan(span.end, 2.95, "video runs to the end: \(span)", file: fileName, line: line)
        XCTAssertGreaterThan(span.count, Int(2.5 * fps), "\(probe)", file: fileName, line: line)
        let f = try FrameSampler.frame(out, at: 2.5)
        assertColour(f, f.fullRect.inset(0.1), is: w.rgb, "the file's frame at 2.5 s", file: fileName, line: line)
    }

    private func assertNoKey(_ key: String, in text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(text.contains(key), "the stream key '\(key)' appears in the output", file: file, line: line)
    }
}
