import Foundation
import XCTest

/// What the service does with an X11 recording, done once with a Wayland recording through the
/// ScreenCast portal: `recordctl start` (the service started on demand as the rig's user, in
/// the Wayland session without X), pause and resume, split, the replay buffer, the live preview,
/// RTMP beside the file, stop, and a second recording discarded. Checked by decoding.
final class WaylandServiceTests: EndToEndTestCase {
    private var wayland: WaylandRig!
    private var recordctl: String!
    private var out: String!
    private static let background = RGB(r: 0x33, g: 0x66, b: 0xCC)
    /// Away from `weston-presentation-shm`'s window (at 0,0, 250x250).
    private static let backgroundRect = PixelRect(x: 1400, y: 600, width: 300, height: 300)

    override func setUpWithError() throws {
        try super.setUpWithError()
        wayland = try WaylandRig.require()
        recordctl = try wayland.reachable(try rig.recordctlPath(), also: ["recordctl-engine", "recordd"])
        out = try wayland.workDirectory(name)
        addTeardownBlock { [weak self, out] in
            if let out, self?.testRun?.totalFailureCount == 0 { try? FileManager.default.removeItem(atPath: out) }
            else if let out { print("WaylandServiceTests: kept \(out) for inspection") }
        }
    }

    /// `recordctl ARGS` as the rig's user in the Wayland session (bounded).
    @discardableResult
    private func ctl(_ arguments: [String], timeout: TimeInterval = 60) throws -> ProcessResult {
        let (exe, argv) = wayland.command(recordctl, arguments)
        return try ProcessRunner.run(exe, argv, timeout: timeout)
    }

    /// `ctl` that must exit 0; its standard output, trimmed.
    @discardableResult
    private func ok(_ arguments: [String], timeout: TimeInterval = 60, line: UInt = #line) throws -> String {
        let r = try ctl(arguments, timeout: timeout)
        XCTAssertEqual(r.exitCode, 0, "recordctl \(arguments.joined(separator: " ")): \(r)", line: line)
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The service's recording (`status --json`, recording).
    private func recording() throws -> [String: Any] {
        let json = try ok(["status", "--json"])
        let status = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return try XCTUnwrap(status?["recording"] as? [String: Any], "a recording is running: \(json)")
    }

    /// The recording's state (`recording`, `paused`).
    private func recordingState() throws -> String? { try recording()["state"] as? String }

    /// The recorder's status (recording.recorder).
    private func recorderStatus() throws -> [String: Any] { try XCTUnwrap(try recording()["recorder"] as? [String: Any]) }

    /// Every picture the compositor sent becomes a frame: `weston-presentation-shm` redraws at
    /// the output's refresh and the portal backend sends up to 30 pictures a second, so two can
    /// arrive within one capture tick; both are recorded (the older is not replaced). Read from
    /// the status: pictures received (`damage.grabs`) against frames captured that are not
    /// repeats, apart from the few still waiting for the next tick and any counted as dropped;
    /// the file holds those frames.
    func testEveryPictureTheCompositorSentBecomesAFrame() throws {
        let motion = try wayland.startMotion()
        defer { _ = motion.wait(timeout: 0.1, grace: 2) }
        defer { _ = try? ctl(["service", "stop"], timeout: 30) }
        let output = out + "/every-picture.mp4"
        try ok(["start", "--source", "portal", "--no-mic", "--no-app-audio", "--output", output], timeout: 90)
        Thread.sleep(forTimeInterval: 5)
        let capture = try XCTUnwrap(try recorderStatus()["capture"] as? [String: Any])
        try ok(["stop"], timeout: 90)
        let damage = try XCTUnwrap(capture["damage"] as? [String: Any], "\(capture)")
        let received = try XCTUnwrap(damage["grabs"] as? Int, "\(damage)")
        let repeats = try XCTUnwrap(damage["repeatedFrames"] as? Int, "\(damage)")
        let captured = try XCTUnwrap(capture["framesCaptured"] as? Int, "\(capture)")
        let dropped = try XCTUnwrap(capture["framesDropped"] as? Int, "\(capture)")
        let pictures = captured - repeats
        print("WaylandServiceTests: \(received) pictures received, \(pictures) captured (+ \(repeats) repeats), \(dropped) dropped")
        XCTAssertGreaterThanOrEqual(received, 40, "the moving window makes the compositor send pictures: \(capture)")
        XCTAssertLessThanOrEqual(pictures, received, "a captured picture was received: \(capture)")
        // Up to 4 wait for the pacing thread's next tick (PipeWireFrameReceiver.pendingCapacity).
        XCTAssertLessThanOrEqual(received - pictures, 4 + dropped, "every picture received became a frame: \(capture)")
        let frames = try FFprobe.probe(output).video.first?.frameCount ?? 0
        XCTAssertGreaterThanOrEqual(frames, captured - dropped, "the file holds the frames captured up to the status and more")
    }

    /// A portal recording by the service with a file, RTMP, a 30 s replay buffer and the
    /// preview: paused 1.5 s, split once, a replay clip saved, the preview's status answered;
    /// the two parts are 1920x1080 with the session's background, start on a key frame, and add
    /// up to the recorded time (the pause cut out); the clip and nginx-rtmp's recording decode
    /// at 1920x1080. Then a second recording is discarded: nothing of it remains.
    func testPauseSplitReplayPreviewRTMPAndDiscardOnAPortalRecording() throws {
        guard let rtmp = rig.rtmpURL, !rtmp.isEmpty, let recordDir = rig.rtmpRecordDir, !recordDir.isEmpty else {
            return XCTFail("RK_RTMP_URL / RK_RTMP_REC_DIR not set: run scripts/test.sh")
        }
        let motion = try wayland.startMotion()
        defer { _ = motion.wait(timeout: 0.1, grace: 2) }
        defer { _ = try? ctl(["service", "stop"], timeout: 30) }
        let key = "testkey-wayland-\(UUID().uuidString.prefix(8).lowercased())"  // the rig's nginx takes keys starting with "testkey"
        RTMPServerRecordings.remove(key, in: recordDir)
        let output = out + "/service.mp4"

        let started = try ok(["start", "--source", "portal", "--no-mic", "--no-app-audio", "--frame-rate-mode", "constant",
                              "--output", output, "--rtmp", rtmp + "/" + key, "--replay-buffer", "30", "--preview"], timeout: 90)
        let previewURL = started.split(separator: "\n").first { $0.hasPrefix("preview: ") }.map { String($0.dropFirst("preview: ".count)) }
        Thread.sleep(forTimeInterval: 2)
        try ok(["pause"])
        XCTAssertEqual(try recordingState(), "paused")
        Thread.sleep(forTimeInterval: 1.5)
        try ok(["resume"])
        Thread.sleep(forTimeInterval: 2)
        let firstPart = try ok(["split"], timeout: 90)
        Thread.sleep(forTimeInterval: 2)
        let clip = try ok(["save-replay"], timeout: 90)
        if let previewURL {
            // The service runs as a user other than root here: its web server must answer (a
            // socket option only root may set once closed every connection of such a service).
            let status = try ProcessRunner.run("curl", ["-s", "--max-time", "5", previewURL.replacingOccurrences(of: "/?token=", with: "/status?token=")], timeout: 15)
            let json = try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
            XCTAssertNotNil(json?["preview"], "the preview answers with the recording's status: \(status)")
        } else {
            XCTFail("start prints the preview's URL: \(started)")
        }
        let recorded = try recorderStatus()["recordedSeconds"] as? Double ?? -1
        // stop prints each output's result, the file's first.
        let lastPart = try ok(["stop"], timeout: 90).split(separator: "\n").first.map(String.init) ?? ""

        XCTAssertEqual([firstPart, lastPart], [out + "/service-001.mp4", out + "/service-002.mp4"], "split prints the closed part, stop the last")
        var total = 0.0
        for part in [firstPart, lastPart] {
            let probe = try FFprobe.probe(part)
            XCTAssertEqual(probe.video.first?.width, 1920, "\(part): \(probe)")
            XCTAssertEqual(probe.video.first?.height, 1080, "\(part): \(probe)")
            let keys = try FFprobe.keyFrameTimes(part, streamIndex: probe.video.first?.index ?? 0)
            XCTAssertEqual(keys.first ?? -1, 0, accuracy: 0.001, "\(part) starts on a key frame")
            let span = try FFprobe.packetSpan(part, streamIndex: probe.video.first?.index ?? 0)
            total += span.end
            assertColour(try FrameSampler.frame(part, at: span.end / 2), Self.backgroundRect, is: Self.background, tolerance: 12, "\(part): background")
        }
        XCTAssertEqual(total, recorded, accuracy: 0.6, "the parts add up to the recorded time, the pause cut out")
        XCTAssertGreaterThan(recorded, 4, "the recording ran: \(recorded) s")

        let clipProbe = try FFprobe.probe(clip)
        XCTAssertEqual(clipProbe.video.first?.width, 1920, "the replay clip: \(clipProbe)")
        XCTAssertGreaterThanOrEqual(clipProbe.formatDuration ?? 0, 3, "the clip holds the recording so far: \(clipProbe)")

        let streams = RTMPServerRecordings.wait(for: key, in: recordDir, count: 1, timeout: 20)
        if let flv = streams.first {
            let probe = try FFprobe.probe(flv)
            XCTAssertEqual(probe.video.first?.width, 1920, "what nginx-rtmp received: \(probe)")
            XCTAssertGreaterThanOrEqual(probe.formatDuration ?? 0, recorded - 1.5, "the stream carries the recording: \(probe)")
        } else {
            XCTFail("nginx-rtmp recorded nothing for \(key)")
        }
        RTMPServerRecordings.remove(key, in: recordDir)

        // A second recording, discarded: no file and no working file of it remain.
        let discarded = out + "/discarded.mp4"
        try ok(["start", "--source", "portal", "--no-mic", "--no-app-audio", "--output", discarded], timeout: 90)
        Thread.sleep(forTimeInterval: 1.5)
        try ok(["discard"], timeout: 60)
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).filter { $0.contains("discarded") }
        XCTAssertEqual(left, [], "a discarded recording leaves nothing")
    }
}
