import Foundation
import XCTest

/// The obs-websocket 5 server (docs/OBS-WEBSOCKET.md) against third-party clients from PyPI: `obsws-python`
/// (request and event clients, JSON) drives a real recording; a MessagePack client
/// (`websocket-client` + `msgpack`) drives the replay buffer; a wrong password is closed with 4009
/// and records nothing; a storm of malformed frames leaves the service and a recording unharmed.
/// The clients are Tests/Fixtures/obs/obs-clients.py; port 19901 (never 4455).
final class ObsWebSocketTests: EndToEndTestCase {
    private var service: ServiceHarness!
    /// 19901, or `RK_OBS_WS_PORT` (a developer's own port range on a shared machine).
    private let port = Int(ProcessInfo.processInfo.environment["RK_OBS_WS_PORT"] ?? "") ?? 19901
    private var password = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        let config = path("config")
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        service = try ServiceHarness(rig: rig, workDir: workDir, extraEnvironment: ["XDG_CONFIG_HOME": config, "XDG_VIDEOS_DIR": workDir])
        addTeardownBlock { [service] in service?.shutdown() }
        try service.ok(["obs-websocket", "enable", "--port", String(port)])
        let json = try service.ok(["obs-websocket", "--json"])
        let settings = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        password = settings?["password"] as? String ?? ""
        XCTAssertEqual(password.count, 24, "a generated password: \(json)")
        XCTAssertEqual(settings?["url"] as? String, "ws://127.0.0.1:\(port)")
        let mode = try FileManager.default.attributesOfItem(atPath: config + "/recordkit/private.toml")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "the private file is the user's alone")
        try service.ok(["status"])  // starts recordd
        try waitForPort()
    }

    private func waitForPort() throws {
        for _ in 0..<100 {
            let r = try ProcessRunner.run("/bin/bash", ["-c", "exec 3<>/dev/tcp/127.0.0.1/\(port)"], timeout: 5)
            if r.exitCode == 0 { return }
            usleep(100_000)
        }
        XCTFail("obs-websocket did not listen on \(port) within 10 s")
    }

    private func client(_ arguments: [String], timeout: TimeInterval = 90) throws -> [String: Any] {
        let script = packageRoot.appendingPathComponent("Tests/Fixtures/obs/obs-clients.py").path
        let r = try ProcessRunner.run("/usr/bin/env", ["python3", script] + arguments, environment: rig.environment, timeout: timeout)
        XCTAssertEqual(r.exitCode, 0, "obs-clients.py \(arguments.first ?? ""): \(r)")
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    /// obsws-python: StartRecord, PauseRecord, ResumeRecord, CreateRecordChapter, SplitRecordFile,
    /// StopRecord; the events say STARTING … STOPPED with the path; both parts play, the pause is
    /// cut, the chapter is in the first part; a second StartRecord is 500, an unknown request 204.
    func testObswsPythonDrivesARealRecording() throws {
        let out = try client(["record", String(port), password, workDir])
        XCTAssertEqual(out["rpc"] as? Int, 1)
        XCTAssertTrue((out["availableRequests"] as? [String] ?? []).contains("StartRecord"))
        XCTAssertEqual(out["directory"] as? String, workDir)
        XCTAssertEqual((out["status_running"] as? [String: Any])?["output_active"] as? Bool, true, "\(out)")
        XCTAssertEqual(out["paused"] as? Bool, true)
        XCTAssertEqual(out["second_start"] as? Int, 500, "a running output answers OutputRunning")
        XCTAssertEqual(out["unknown"] as? Int, 204)
        let last = try XCTUnwrap(out["outputPath"] as? String, "\(out)")
        XCTAssertTrue(last.hasPrefix(workDir + "/Recording ") && last.hasSuffix("-002.mp4"), last)
        let first = last.replacingOccurrences(of: "-002.mp4", with: "-001.mp4")
        let states = (out["events"] as? [[Any]] ?? []).filter { $0.first as? String == "RecordStateChanged" }.compactMap { $0[1] as? String }
        XCTAssertEqual(states, ["OBS_WEBSOCKET_OUTPUT_STARTING", "OBS_WEBSOCKET_OUTPUT_STARTED", "OBS_WEBSOCKET_OUTPUT_PAUSED",
                                "OBS_WEBSOCKET_OUTPUT_RESUMED", "OBS_WEBSOCKET_OUTPUT_STOPPING", "OBS_WEBSOCKET_OUTPUT_STOPPED"], "\(out)")
        let stopped = (out["events"] as? [[Any]] ?? []).last { $0[1] as? String == "OBS_WEBSOCKET_OUTPUT_STOPPED" }
        XCTAssertEqual(stopped?[2] as? String, last, "STOPPED names the file")
        let fileChanged = (out["events"] as? [[Any]] ?? []).first { $0.first as? String == "RecordFileChanged" }
        XCTAssertEqual(fileChanged?[1] as? String, last, "the split names the part written next")
        let p1 = try FFprobe.probe(first)
        let p2 = try FFprobe.probe(last)
        XCTAssertEqual(p1.video.count, 1)
        XCTAssertEqual(p2.video.count, 1)
        // 2.5 s, then 1 s after the pause (the 1 s paused is cut) before the split, which waits for
        // the next key frame (at most 2 s); 2 s after it. After the resume the file goes on only
        // from the next key frame (up to 2 s on this still screen), so of that second part 1 keeps
        // 0-1 s: at least the 2.5 s before the pause (less the start's latency). Its audio ends at
        // the cut, where its video does (it used to run on past it, which is what a bound of 3 s
        // measured).
        let d1 = p1.formatDuration ?? 0, d2 = p2.formatDuration ?? 0
        XCTAssertGreaterThanOrEqual(d1, 2.4, "\(p1)")
        XCTAssertLessThan(d1, 6.5, "the paused second is cut: \(p1)")
        XCTAssertGreaterThan(d2, 0.5, "\(p2)")
        let wall = (out["wall"] as? Double) ?? 0
        XCTAssertGreaterThanOrEqual(d1 + d2, 4.5, "both parts hold the recording")
        // Container durations include each part's audio edges, so only a bound: no more than the wall time.
        XCTAssertLessThanOrEqual(d1 + d2, wall + 1.0, "wall time StartRecord to StopRecord: \(wall) s")
        let chapters = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_chapters", "-of", "json", first], timeout: 30)
        XCTAssertTrue(chapters.stdout.contains("Chapter A"), "the chapter is in the first part: \(chapters.stdout)")
    }

    /// obsws-python: StartReplayBuffer, then StartRecord and StartStream on the same capture,
    /// PauseRecord pausing the file alone, StopRecord, StopStream and StopReplayBuffer each
    /// stopping its own output while the others go on; every output has its STARTED and
    /// STOPPED events; the file starts with a key frame and lacks its paused second and a half;
    /// the stream reached nginx-rtmp; the clip saved after both stopped plays.
    func testObswsPythonStartsRecordStreamAndReplayBufferIndependently() throws {
        guard let url = rig.rtmpURL, !url.isEmpty, let recordDir = rig.rtmpRecordDir, !recordDir.isEmpty else {
            throw RigError(description: "RK_RTMP_URL / RK_RTMP_REC_DIR not set: run scripts/test.sh (it starts the rig's nginx-rtmp)")
        }
        let key = "testkey-obs-\(UUID().uuidString.prefix(8).lowercased())"
        defer { RTMPServerRecordings.remove(key, in: recordDir) }
        // The stream endpoint is read at the service's start: add it, then start the service again.
        let pid = try service.pid()
        try service.ok(["service", "stop"], timeout: 20)
        for _ in 0..<50 where pid.map({ kill($0, 0) == 0 }) == true { usleep(100_000) }
        let privateFile = path("config/recordkit/private.toml")
        let text = try String(contentsOfFile: privateFile, encoding: .utf8)
        try text.replacingOccurrences(of: "[obs-websocket]\n", with: "[obs-websocket]\nstream-url = \"\(url)/\(key)\"\n")
            .write(toFile: privateFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: privateFile)  // else refused: it holds the key
        try service.ok(["status"])
        try waitForPort()

        let out = try client(["outputs", String(port), password, workDir])
        XCTAssertEqual(out["all"] as? [String: Bool], ["record": true, "replay": true, "stream": true], "\(out)")
        XCTAssertEqual(out["record_paused"] as? Bool, true)
        XCTAssertEqual(out["after_record"] as? [String: Bool], ["record": false, "replay": true, "stream": true], "\(out)")
        XCTAssertEqual(out["after_stream"] as? [String: Bool], ["record": false, "replay": true, "stream": false], "\(out)")
        XCTAssertEqual(out["after_all"] as? [String: Bool], ["record": false, "replay": false, "stream": false], "\(out)")
        let events = (out["events"] as? [[Any]] ?? []).map { "\($0[0]) \($0[1])" }
        for output in ["Record", "ReplayBuffer", "Stream"] {
            let states = events.filter { $0.hasPrefix(output + " ") }
            XCTAssertEqual(states.filter { $0.hasSuffix("_STARTED") }.count, 1, "\(output): \(events)")
            XCTAssertEqual(states.last, "\(output) OBS_WEBSOCKET_OUTPUT_STOPPED", "\(output): \(events)")
        }
        XCTAssertTrue(events.contains("Record OBS_WEBSOCKET_OUTPUT_PAUSED") && events.contains("Record OBS_WEBSOCKET_OUTPUT_RESUMED"), "\(events)")
        // The stream and the replay buffer were still running when the file stopped.
        let recordStopped = events.firstIndex(of: "Record OBS_WEBSOCKET_OUTPUT_STOPPED") ?? -1
        let streamStopped = events.firstIndex(of: "Stream OBS_WEBSOCKET_OUTPUT_STOPPED") ?? -1
        XCTAssertLessThan(recordStopped, streamStopped, "\(events)")

        let file = try XCTUnwrap(out["outputPath"] as? String, "\(out)")
        let probe = try FFprobe.probe(file)
        XCTAssertEqual(probe.video.count, 1, "\(probe)")
        XCTAssertEqual(probe.audio.count, 2, "\(probe)")
        let wall = out["record_wall"] as? Double ?? 0
        let seconds = Double(probe.video.first?.frameCount ?? 0) / 30
        XCTAssertLessThanOrEqual(seconds, wall - 1.5 + 1.0, "the paused 1.5 s are cut: \(probe), wall \(wall)")
        XCTAssertGreaterThanOrEqual(probe.formatDuration ?? 0, 2.0, "\(probe)")
        let keys = try FFprobe.keyFrameTimes(file, streamIndex: probe.video[0].index)
        let packets = try FFprobe.packetTimes(file, streamIndex: probe.video[0].index)
        XCTAssertEqual(keys.first ?? -1, packets.min() ?? -2, accuracy: 0.001, "the file starts with a key frame")
        XCTAssertEqual(RTMPServerRecordings.wait(for: key, in: recordDir, count: 1).count, 1, "the stream reached the server")
        let clip = try XCTUnwrap(out["replay"] as? String, "\(out)")
        let clipProbe = try FFprobe.probe(clip)
        XCTAssertEqual(clipProbe.video.count, 1, "\(clipProbe)")
        XCTAssertGreaterThan(clipProbe.video.first?.duration ?? 0, 5, "the buffer kept the whole time: \(clipProbe)")
    }

    /// A MessagePack client: the subprotocol echoed, binary Hello, StartReplayBuffer when idle,
    /// SaveReplayBuffer (a playable clip, ReplayBufferSaved), a batch ending in StopReplayBuffer.
    func testMessagePackClientDrivesTheReplayBuffer() throws {
        let out = try client(["msgpack", String(port), password])
        XCTAssertEqual(out["subprotocol"] as? String, "obswebsocket.msgpack")
        XCTAssertEqual(out["hello_binary"] as? Bool, true)
        XCTAssertEqual(out["identified"] as? Int, 2)
        XCTAssertEqual((out["start"] as? [String: Any])?["code"] as? Int, 100, "\(out)")
        XCTAssertEqual((out["status"] as? [String: Any])?["outputActive"] as? Bool, true)
        XCTAssertEqual((out["save"] as? [String: Any])?["code"] as? Int, 100, "\(out)")
        let clip = try XCTUnwrap((out["last"] as? [String: Any])?["savedReplayPath"] as? String, "\(out)")
        XCTAssertEqual(out["batch"] as? [Int], [100, 100, 100])
        let events = (out["events"] as? [[Any]] ?? []).map { "\($0[0]) \($0[1])" }
        XCTAssertTrue(events.contains("ReplayBufferSaved \(clip)"), "\(events)")
        XCTAssertTrue(events.contains("ReplayBufferStateChanged OBS_WEBSOCKET_OUTPUT_STOPPED"), "\(events)")
        XCTAssertFalse(events.contains { $0.hasPrefix("RecordStateChanged") }, "no file output, no record events")
        let probe = try FFprobe.probe(clip)
        XCTAssertEqual(probe.video.count, 1)
        XCTAssertGreaterThan(probe.video.first?.duration ?? 0, 1.0)
    }

    /// A wrong password is closed with 4009 and records nothing; malformed frames on 60
    /// connections are each closed with a protocol code while a recording runs, which ends
    /// normally with every second of it.
    func testWrongPasswordAndMalformedFramesLeaveServiceAndRecordingUnharmed() throws {
        XCTAssertEqual(try client(["badauth", String(port)])["close"] as? Int, 4009)
        XCTAssertNil(try service.status()["recording"], "nothing recorded")
        let file = path("under-storm.mp4")
        try service.ok(["start", "--region", "320x240+0+0", "--output", file])
        let started = Date()
        let closes = try client(["storm", String(port), password])["closes"] as? [String: Int] ?? [:]
        XCTAssertEqual(closes.values.reduce(0, +), 60, "\(closes)")
        XCTAssertTrue(closes.keys.allSatisfy { ["4002", "4003", "4004", "4006", "4007", "4010"].contains($0) }, "protocol close codes only: \(closes)")
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual((try service.status()["recording"] as? [String: Any])?["state"] as? String, "recording")
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(try service.ok(["stop"]), file)
        let probe = try FFprobe.probe(file)
        XCTAssertGreaterThanOrEqual(probe.video.first?.duration ?? 0, elapsed - 1.0, "the recording kept every second: \(probe)")
        XCTAssertEqual(try client(["badauth", String(port)])["close"] as? Int, 4009, "the server still serves")
    }

    /// obsws-python drives the live audio switches: GetInputList names "Mic/Aux" and "Desktop
    /// Audio"; idle, unmuting is refused (604); during a recording SetInputMute / ToggleInputMute
    /// / GetInputMute switch and read the mic and the app audio; InputMuteStateChanged reaches
    /// the client subscribed to inputs and never the one subscribed to outputs only; the file is
    /// silent in each track exactly while it was muted (the service's event times), tone elsewhere.
    func testInputMuteSwitchesMicAndDesktopAudioInTheFile() throws {
        let events = try service.watchEvents()
        let out = try client(["mute", String(port), password, workDir])
        let switched = events.finish().filter { ["mic-off", "mic-on", "app-audio-off", "app-audio-on"].contains($0["kind"] as? String ?? "") }
        let inputs = (out["inputs"] as? [[String]] ?? []).map { $0.joined(separator: " ") }
        XCTAssertEqual(inputs, ["Mic/Aux pulse_input_capture", "Desktop Audio pulse_output_capture"], "\(out)")
        XCTAssertEqual(out["idle_unmute"] as? Int, 604, "nothing to unmute while idle: InvalidResourceState")
        XCTAssertEqual(out["mic_before"] as? Bool, false)
        XCTAssertEqual(out["mic_muted"] as? Bool, true)
        XCTAssertEqual(out["toggled"] as? Bool, false, "ToggleInputMute unmuted the mic")
        XCTAssertEqual(out["desktop_after"] as? Bool, false)
        XCTAssertEqual(out["unknown_input"] as? Int, 600, "an unknown input: ResourceNotFound")
        let obsEvents = (out["events"] as? [[Any]] ?? []).map { "\($0[0]) \($0[1] as? Bool == true ? "muted" : "unmuted")" }
        XCTAssertEqual(obsEvents, ["Mic/Aux muted", "Desktop Audio muted", "Mic/Aux unmuted", "Desktop Audio unmuted"], "\(out)")
        XCTAssertEqual((out["quiet_events"] as? [Any])?.count, 0, "a client subscribed to outputs only gets no input event")
        XCTAssertEqual(out["quiet_saw_stop"] as? Bool, true, "while it does get the output events")
        let kinds = switched.compactMap { $0["kind"] as? String }
        XCTAssertEqual(kinds, ["mic-off", "app-audio-off", "mic-on", "app-audio-on"])
        let t = switched.map { ($0["time"] as? NSNumber)?.doubleValue ?? -1 }
        let path = try XCTUnwrap(out["outputPath"] as? String, "\(out)")
        guard t.count == 4 else { return }
        try assertSwitchedSilence(path, mic: [(t[0], t[2])], app: [(t[1], t[3])])
    }

    /// obsws-python GetSourceScreenshot of "Screen" while a recording runs: a PNG 320 wide and a
    /// JPEG 120 high, each a `data:image/…;base64` URI that decodes to an image of the asked
    /// size with the screen's aspect kept, the window's colour where the window is and not
    /// elsewhere; SaveSourceScreenshot writes a 64x36 PNG; GetVersion lists the formats; an
    /// unknown format is refused (400).
    func testSourceScreenshotPNGAndJPEGOfTheWindow() throws {
        let w = try window(size: (640, 480), position: (200, 200), color: 0x2070D0)
        let out = try client(["shot", String(port), password, workDir])
        XCTAssertEqual(out["formats"] as? [String], ["png", "jpg", "jpeg"])
        XCTAssertEqual(out["png_prefix"] as? String, "data:image/png;base64,iVBORw0K", "a PNG data URI")
        XCTAssertEqual((out["jpg_prefix"] as? String)?.hasPrefix("data:image/jpg;base64,/9j/"), true, "a JPEG data URI: \(out)")
        XCTAssertEqual(out["bad_format"] as? Int, 400)
        let saved = try decodeImage(try XCTUnwrap(out["saved"] as? String, "\(out)"))
        XCTAssertEqual([saved.width, saved.height], [64, 36], "SaveSourceScreenshot wrote a PNG that fits in 64x64")
        for (file, width, height, tolerance) in [("shot.png", 320, 180, 6.0), ("shot.jpg", 213, 120, 8.0)] {
            let image = try decodeImage(path(file))
            XCTAssertEqual(image.width, width, file)
            XCTAssertEqual(image.height, height, file)
            let scale = Double(width) / Double(rig.screenWidth)
            // The window's inside (its middle half: the frame's decoration and scaling edges aside).
            let inside = PixelRect(x: Int(Double(200 + 160) * scale), y: Int(Double(200 + 120) * scale),
                                   width: Int(320 * scale), height: Int(240 * scale))
            assertColour(image, inside, is: w.rgb, tolerance: tolerance, "\(file): the window")
            let far = image.mean(PixelRect(x: Int(1500 * scale), y: Int(900 * scale), width: 8, height: 8))
            XCTAssertGreaterThan(far.distance(to: w.rgb), 40, "\(file): the window's colour only where the window is (far corner \(far))")
        }
    }

    /// An image file decoded to rgb24 by ffmpeg.
    private func decodeImage(_ file: String) throws -> RGBFrame {
        let probe = try FFprobe.probe(file, countFrames: false)
        let width = probe.video.first?.width ?? 0, height = probe.video.first?.height ?? 0
        let data = try ProcessRunner.output("ffmpeg", ["-nostdin", "-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], timeout: 30)
        XCTAssertEqual(data.count, width * height * 3, "\(file) decodes")
        return RGBFrame(width: width, height: height, pixels: [UInt8](data))
    }
}
