import Foundation
import XCTest

/// The recording service (docs/recordctl/service.md): `recordd` driven by `recordctl start / stop / discard /
/// pause / resume / status / events`, on the rig's real display and PulseAudio server.
final class ServiceTests: EndToEndTestCase {
    private var service: ServiceHarness!

    override func setUpWithError() throws {
        try super.setUpWithError()
        service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { [service] in service?.shutdown() }
    }

    /// `start` → 5 s → `stop`: the printed file is right and the events went through the states.
    func testStartFiveSecondsStopWritesTheFileAndPassesThroughTheStates() throws {
        let w = try window(color: 0xCC2222)
        let events = try service.watchEvents()
        let output = path("start-stop.mp4")
        let before = Date()
        let id = try service.ok(["start", "--frame-rate-mode", "constant", "--window", w.id, "--output", output])
        XCTAssertFalse(id.isEmpty, "start prints the recording id")
        let running = try service.status()
        XCTAssertEqual((running["recording"] as? [String: Any])?["state"] as? String, "recording")
        Thread.sleep(forTimeInterval: 5)
        let printed = try service.ok(["stop"])
        let wall = Date().timeIntervalSince(before)
        XCTAssertEqual(printed, output, "stop prints the file it finalized")
        let all = events.finish()
        let states = all.filter { $0["kind"] as? String == "state" }.compactMap { $0["state"] as? String }
        XCTAssertEqual(states, ["starting", "recording", "finishing", "finished"], "states in order")
        let recorded = (all.first { $0["state"] as? String == "finishing" }?["time"] as? NSNumber)?.doubleValue ?? -1

        let probe = try FFprobe.probe(output)
        XCTAssertEqual(probe.video.count, 1)
        XCTAssertEqual(probe.audio.count, 2, "app and mic tracks")
        XCTAssertEqual(probe.video.first?.width, 640)
        XCTAssertEqual(probe.video.first?.height, 480)
        let duration = probe.video.first?.duration ?? 0
        // The recording runs from inside `start` to inside `stop`: at least the 5 s slept between
        // them, at most the wall time of both commands; exactly what the service says it recorded.
        XCTAssertGreaterThanOrEqual(duration, 5.0)
        XCTAssertLessThanOrEqual(duration, wall)
        XCTAssertEqual(duration, recorded, accuracy: 1.0 / 30 + 0.005, "duration = recorded time reported at stop")
        let frame = try FrameSampler.frame(output, at: 2.5)
        assertColour(frame, frame.fullRect.inset(0.1), is: w.rgb, "window content")
        try assertTones(output, probe)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: service.sessionsDir), [], "session directory removed")
    }

    /// `start` → `discard`: nothing of the recording is left, neither at the destination nor in
    /// the session directory.
    func testDiscardLeavesNothingBehind() throws {
        let outDir = path("discard-out")
        try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        let output = outDir + "/discarded.mp4"
        try service.ok(["start", "--region", "320x240+0+0", "--output", output])
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: service.sessionsDir).count, 1, "one session while recording")
        let removed = try service.ok(["discard"])
        XCTAssertTrue(removed.contains(output), "discard names what it removed: \(removed)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outDir), [], "destination directory empty")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: service.sessionsDir), [], "session directory removed")
        let last = (try service.status()["last"] as? [String: Any])?["state"] as? String
        XCTAssertEqual(last, "discarded")
    }

    /// 20 pause/resume cycles over 30 s: paused time is cut (duration = recorded time within a
    /// frame), content shown while paused never appears, timestamps are monotonic, and audio
    /// stays in sync with video (a flash and a beep at the same instant) within 40 ms.
    func testTwentyPauseResumeCyclesCutPausedTimeAndKeepSync() throws {
        _ = try FlashBeep.start(in: self)
        let events = try service.watchEvents()
        let output = path("pauses.mp4")
        try service.ok(["start", "--frame-rate-mode", "constant", "--region", FlashBeep.region, "--output", output, "--no-mic"])
        for cycle in 0..<20 {
            Thread.sleep(forTimeInterval: 0.9)
            try service.ok(["pause"])
            // While paused, something magenta covers the recorded region: it must never be recorded.
            let cover = try window(size: (640, 360), position: (200, 200), color: 0xFF00FF, name: "rk-cover-\(cycle)")
            cover.close()
            Thread.sleep(forTimeInterval: 0.15)
            try service.ok(["resume"])
        }
        Thread.sleep(forTimeInterval: 0.9)
        try service.ok(["stop"])
        let all = events.finish()
        let finishing = all.first { $0["state"] as? String == "finishing" }
        let recorded = (finishing?["time"] as? NSNumber)?.doubleValue ?? -1
        // Lifecycle events only: a warning (frames dropped on a loaded machine) carries the state too.
        let transitions = all.filter { $0["kind"] as? String == "state" }
        XCTAssertEqual(transitions.filter { $0["state"] as? String == "paused" }.count, 20, "\(transitions)")
        XCTAssertEqual(transitions.filter { $0["state"] as? String == "recording" }.count, 21, "\(transitions)")

        let probe = try FFprobe.probe(output)
        let duration = try XCTUnwrap(probe.video.first?.duration)
        XCTAssertEqual(duration, recorded, accuracy: 1.0 / 30 + 0.005, "output duration = recorded time (wall minus paused)")
        let frames = try FrameStats.frames(output)
        // Every frame slot is filled unless the machine was too loaded to encode in time (counted as drops).
        XCTAssertGreaterThan(frames.count, Int(recorded * 30 * 0.8), "frames: \(frames.count) for \(recorded) s")
        for (a, b) in zip(frames, frames.dropFirst()) where b.time <= a.time {
            XCTFail("timestamps go back: \(a.time) then \(b.time)")
        }
        let magenta = frames.filter { $0.u > 170 && $0.v > 170 }
        XCTAssertEqual(magenta.count, 0, "frames showing what was on screen while paused: \(magenta.map(\.time))")

        // A stimulus that straddles a cut is partly removed by design: measure the others.
        let cuts = all.filter { $0["state"] as? String == "paused" }.compactMap { ($0["time"] as? NSNumber)?.doubleValue }
        let flashes = FrameStats.flashOnsets(frames).filter { f in cuts.allSatisfy { abs($0 - f) > 0.15 } }
        let beeps = try BeepDetector.onsets(output, audioStream: 0)
        let offsets = FlashBeep.offsets(flashes: flashes, beeps: beeps, within: 0.15)
        verbose("flashes \(flashes.count), beeps \(beeps.count), offsets ms \(offsets.map { Int($0 * 1000) })")
        FlashBeep.assertInSync(offsets, minimumPairs: 8, meanWithin: 0.040, eachWithin: 0.040 + 1.0 / 30, label: "ServiceTests",
                               pairsFound: "flashes \(flashes.count), beeps \(beeps.count)")
    }

    /// Minimizing the recorded window pauses and restoring resumes, with reasons; the screen
    /// saver pauses too; nothing from those spans is in the file.
    func testMinimizeAndScreenSaverPauseAndResumeWithReasons() throws {
        let w = try window(color: 0x22AA22)
        let events = try service.watchEvents()
        let output = path("background.mp4")
        try service.ok(["start", "--frame-rate-mode", "constant", "--window", w.id, "--output", output])
        Thread.sleep(forTimeInterval: 1.5)

        _ = try ProcessRunner.run("xdotool", ["windowminimize", w.id], environment: rig.environment, timeout: 10)
        let paused = events.waitFor(timeout: 5) { $0["state"] as? String == "paused" }
        XCTAssertEqual(paused?["reason"] as? String, "window minimized")
        Thread.sleep(forTimeInterval: 1)
        _ = try ProcessRunner.run("xdotool", ["windowactivate", "--sync", w.id], environment: rig.environment, timeout: 10)
        let resumed = events.waitFor(timeout: 5) { $0["state"] as? String == "recording" }
        // openbox maps a restored window a moment before it clears its hidden state, so the last
        // background reason before resuming may be "window unmapped".
        XCTAssertTrue(["window minimized ended", "window unmapped ended"].contains(resumed?["reason"] as? String ?? ""),
                      "resume reason: \(String(describing: resumed?["reason"]))")
        Thread.sleep(forTimeInterval: 1)

        _ = try ProcessRunner.run("xset", ["s", "activate"], environment: rig.environment, timeout: 10)
        let locked = events.waitFor(timeout: 5) { $0["state"] as? String == "paused" }
        XCTAssertEqual(locked?["reason"] as? String, "screen locked or screen saver active")
        Thread.sleep(forTimeInterval: 1)
        _ = try ProcessRunner.run("xset", ["s", "reset"], environment: rig.environment, timeout: 10)
        let unlocked = events.waitFor(timeout: 5) { $0["state"] as? String == "recording" }
        XCTAssertNotNil(unlocked, "resumes when the screen saver ends")
        Thread.sleep(forTimeInterval: 1.5)
        try service.ok(["stop"])
        _ = events.finish()

        let frames = try FrameStats.frames(output)
        XCTAssertGreaterThan(frames.count, 100)
        // The window is green: Y≈124, U≈76, V≈61 (BT.709). Black (minimized, saver) or anything else is a leak.
        let foreign = frames.filter { abs($0.y - 124) > 25 || abs($0.u - 76) > 20 || abs($0.v - 61) > 20 }
        XCTAssertEqual(foreign.count, 0, "frames not showing the window: \(foreign.prefix(5).map { "\($0.time): Y\(Int($0.y)) U\(Int($0.u)) V\(Int($0.v))" })")
        let duration = try XCTUnwrap(try FFprobe.probe(output).video.first?.duration)
        XCTAssertLessThan(duration, 6.5, "the paused spans (about 2 s) are not in the file")
    }

    /// `kill -9` of recordd mid-recording, then any recordctl command: the recording is
    /// recovered into a playable file and reported.
    func testKilledServiceLeavesARecoverableRecording() throws {
        let output = path("recovered.mp4")
        try service.ok(["start", "--region", "640x360+0+0", "--output", output])
        Thread.sleep(forTimeInterval: 5)
        let pid = try XCTUnwrap(try service.pid())
        XCTAssertEqual(kill(pid, SIGKILL), 0)
        for _ in 0..<50 where kill(pid, 0) == 0 { usleep(100_000) }

        let status = try service.ok(["status"])  // starts a new service, which recovers
        XCTAssertTrue(status.contains("recovered:") && status.contains(output), "status reports the recovery: \(status)")
        let probe = try FFprobe.probe(output)
        XCTAssertEqual(probe.video.count, 1)
        XCTAssertGreaterThanOrEqual(probe.video.first?.duration ?? 0, 3.0, "at least the recorded time minus 2 s")
        XCTAssertGreaterThanOrEqual(probe.audio.first?.duration ?? 0, 3.0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: service.sessionsDir), [], "session directory cleaned")
    }

    /// A few hundred malformed requests leave the service running and answering.
    func testMalformedRequestsGetErrorsAndTheServiceStaysUp() throws {
        try service.ok(["service", "start"])
        let script = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.settimeout(10); s.connect(sys.argv[1])
        f = s.makefile("rwb")
        bad = [b"not json", b"{}", b"[]", b'{"v":1}', b'{"v":99,"cmd":"status"}', b'{"v":1,"cmd":"explode"}',
               b'{"v":1,"cmd":"start","args":{"fps":"many"}}', b'{"v":1,"cmd":"start","args":{"region":"12x"}}',
               b'{"v":1,"cmd":"pause"}', b"\\xff\\xfe\\x00garbage", b"x" * 70000]
        codes = {}
        for i in range(300):
            f.write(bad[i % len(bad)] + b"\\n"); f.flush()
            reply = json.loads(f.readline())
            assert reply["ok"] is False, reply
            codes[reply["error"]["code"]] = codes.get(reply["error"]["code"], 0) + 1
        f.write(b'{"v":1,"cmd":"hello"}\\n'); f.flush()
        print(json.dumps({"codes": codes, "hello": json.loads(f.readline())}))
        """
        let r = try ProcessRunner.run("python3", ["-c", script, service.socketPath], environment: rig.environment, timeout: 60)
        XCTAssertEqual(r.exitCode, 0, "\(r)")
        let obj = EventWatcher.parse(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertEqual((obj?["hello"] as? [String: Any])?["ok"] as? Bool, true, "still answering: \(r.stdout)")
        let codes = obj?["codes"] as? [String: Int] ?? [:]
        for code in ["bad_request", "version", "unknown_command", "bad_argument", "not_recording", "too_large"] {
            XCTAssertNotNil(codes[code], "an error reply with code \(code): \(codes)")
        }
        try service.ok(["service", "status"])
    }

    /// The socket is private: another uid cannot reach it (directory 0700, socket 0600).
    func testAnotherUserCannotReachTheSocket() throws {
        try service.ok(["service", "start"])
        var st = stat()
        XCTAssertEqual(stat(service.runtimeDir + "/recordkit", &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o700)
        XCTAssertEqual(stat(service.socketPath, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
        let probe = "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect(sys.argv[1]); print('connected')\nexcept OSError as e:\n print('refused', e.errno)"
        let r = try ProcessRunner.run("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", probe, service.socketPath],
                                      environment: rig.environment, timeout: 20)
        XCTAssertTrue(r.stdout.hasPrefix("refused"), "uid 65534 must not connect: \(r)")
    }
}
