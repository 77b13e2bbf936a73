import Foundation
import XCTest

/// The live microphone switch (ReplayKit's `isMicrophoneEnabled` on a running
/// recording): `recordctl mic off|on`, `start --mic-off` and the preview page's Mic button, on
/// the rig's display and PulseAudio tones (app 440 Hz, mic 1000 Hz). Checked in the file: the
/// mic track is silent exactly while off (within 100 ms of the switch times the events give),
/// carries its tone before and after, spans the whole recording and has no timestamp jump; the
/// app track is untouched.
final class MicSwitchTests: EndToEndTestCase {
    private var service: ServiceHarness!

    override func setUpWithError() throws {
        try super.setUpWithError()
        service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { [service] in service?.shutdown() }
    }

    /// `mic off` after 2 s, `mic on` 2.5 s later, stop 2.5 s after that: silence exactly between
    /// the two events' times, tone elsewhere, status shows the state, the events are in order and
    /// as far apart as the two commands were.
    func testMicOffAndOnRecordsSilenceExactlyWhileOff() throws {
        let events = try service.watchEvents()
        let output = path("mic-switch.mp4")
        // Beside the file an RTMP stream to the rig's nginx: its one audio track is app + mic mixed.
        let url = try XCTUnwrap(rig.rtmpURL, "the rig's nginx-rtmp"), recordDir = try XCTUnwrap(rig.rtmpRecordDir)
        let key = "testkey-mic-\(UUID().uuidString.prefix(8).lowercased())"
        defer { RTMPServerRecordings.remove(key, in: recordDir) }
        try service.ok(["start", "--region", "320x240+0+0", "--frame-rate-mode", "constant", "--output", output, "--rtmp", "\(url)/\(key)"])
        XCTAssertTrue(try service.ok(["status"]).contains("audio switches: mic on, app audio on"), "status shows the mic on")
        Thread.sleep(forTimeInterval: 2)
        let offSent = Date()
        let offPrinted = Double(try service.ok(["mic", "off"])) ?? -1
        let offAnswered = Date()
        let capture = { [service] in ((try? service!.status())?["recording"] as? [String: Any]).flatMap { ($0["recorder"] as? [String: Any])?["capture"] as? [String: Any] } }
        XCTAssertEqual(capture()?["audioMuted"] as? [String], ["audioMic"], "status --json lists the muted mic")
        XCTAssertTrue(try service.ok(["status"]).contains("audio switches: mic off, app audio on"), "status shows the mic off")
        Thread.sleep(forTimeInterval: 2.5)
        let onSent = Date()
        let onPrinted = Double(try service.ok(["mic", "on"])) ?? -1
        let onAnswered = Date()
        XCTAssertEqual(capture()?["audioMuted"] as? [String], [], "the mic is on again")
        Thread.sleep(forTimeInterval: 2.5)
        try service.ok(["stop"])
        let all = events.finish()

        let switches = all.filter { ($0["kind"] as? String)?.hasPrefix("mic-") == true }
        XCTAssertEqual(switches.compactMap { $0["kind"] as? String }, ["mic-off", "mic-on"], "one event per switch, in order")
        guard switches.count == 2, let off = (switches[0]["time"] as? NSNumber)?.doubleValue,
              let on = (switches[1]["time"] as? NSNumber)?.doubleValue else { return XCTFail("switch events with times: \(switches)") }
        XCTAssertEqual(off, offPrinted, accuracy: 0.002, "recordctl mic prints the event's time")
        XCTAssertEqual(on, onPrinted, accuracy: 0.002)
        // The events are as far apart as the commands were: at least from `off`'s answer to `on`'s
        // sending, at most from `off`'s sending to `on`'s answer (the test's own pace, which a slow
        // machine stretches, is not what is measured).
        let tolerance = 0.05
        XCTAssertGreaterThanOrEqual(on - off, onSent.timeIntervalSince(offAnswered) - tolerance, "the events' times follow the commands")
        XCTAssertLessThanOrEqual(on - off, onAnswered.timeIntervalSince(offSent) + tolerance, "the events' times follow the commands")
        // A second `mic on` changes nothing and sends no event; with nothing recording it is not_recording.
        try assertSwitchedSilence(output, mic: [(off, on)])
        // The mixed track loses the mic's share only: 1000 Hz gone while off, 440 Hz throughout.
        let flv = try XCTUnwrap(RTMPServerRecordings.wait(for: key, in: recordDir, count: 1).first, "the stream reached the server")
        let candidates = [rig.appToneHz, rig.micToneHz]
        let before = try ToneAnalyzer.analyze(flv, audioStream: 0, candidates: candidates, start: 0.5, duration: off - 0.8)
        let during = try ToneAnalyzer.analyze(flv, audioStream: 0, candidates: candidates, start: off + 0.3, duration: on - off - 0.6)
        let after = try ToneAnalyzer.analyze(flv, audioStream: 0, candidates: candidates, start: on + 0.3, duration: 1.5)
        verbose("mixed: before \(before), during \(during), after \(after)")
        let db = { (a: Double, b: Double) in 10 * log10(max(a, 1e-20) / max(b, 1e-20)) }
        XCTAssertGreaterThan(db(before.power[rig.micToneHz] ?? 0, during.power[rig.micToneHz] ?? 0), 30, "the mic's tone leaves the mixed track while off")
        XCTAssertGreaterThan(db(after.power[rig.micToneHz] ?? 0, during.power[rig.micToneHz] ?? 0), 30, "and comes back")
        XCTAssertEqual(db(before.power[rig.appToneHz] ?? 0, during.power[rig.appToneHz] ?? 0), 0, accuracy: 6, "the app's share stays")
        let late = try service.ctl(["mic", "on"])
        XCTAssertNotEqual(late.exitCode, 0, "mic without a recording fails")
        XCTAssertTrue(late.stderr.contains("nothing is recording"), late.stderr)
    }

    /// `start --mic-off --preview`: the page's Mic button says "Mic on" while the mic records
    /// silence; clicking it (in real Chromium) switches the mic on (status, the event, the
    /// button's label), and the file is silent from the start to that event's time, tone after.
    /// Screenshots of the page before and after the click: $RK_RIG_DIR/artifacts/preview.
    func testStartMicOffAndPreviewButtonSwitchesItOn() throws {
        let w = try window(size: (320, 240), color: 0x20A040)
        let events = try service.watchEvents()
        let output = path("mic-preview.mp4")
        let printed = try service.ok(["start", "--mic-off", "--preview", "--window", w.id, "--frame-rate-mode", "constant", "--output", output])
        guard let url = printed.split(separator: "\n").first(where: { $0.hasPrefix("preview: ") }).map({ String($0.dropFirst("preview: ".count)) }) else {
            return XCTFail("start prints the preview URL: \(printed)")
        }
        let browser = try Browser(rig: rig, workDir: workDir)
        addTeardownBlock { browser.close() }
        try browser.open(url)
        let label = { (text: String) in "const b = document.getElementById('mic'); return b.textContent === '\(text)' && !b.disabled" }
        XCTAssertNotNil(try browser.wait(label("Mic on"), timeout: 20), "the button offers to switch the muted mic on")
        try saveScreenshot(browser, "mic-off.png")
        Thread.sleep(forTimeInterval: 1.5)
        try browser.click("mic")
        XCTAssertNotNil(try browser.wait(label("Mic off"), timeout: 5), "after the click the button offers to switch it off")
        let muted = ((try service.status()["recording"] as? [String: Any])?["recorder"] as? [String: Any]).flatMap { ($0["capture"] as? [String: Any])?["audioMuted"] as? [String] }
        XCTAssertEqual(muted, [], "the click switched the mic on")
        try saveScreenshot(browser, "mic-on.png")
        Thread.sleep(forTimeInterval: 2.5)
        try service.ok(["stop"])
        let switches = events.finish().filter { ($0["kind"] as? String)?.hasPrefix("mic-") == true }
        XCTAssertEqual(switches.compactMap { $0["kind"] as? String }, ["mic-on"], "one event: the click (starting off is no switch)")
        guard let on = (switches.first?["time"] as? NSNumber)?.doubleValue else { return XCTFail("a mic-on event with its time") }
        try assertSwitchedSilence(output, mic: [(0, on)])
    }

    private func saveScreenshot(_ browser: Browser, _ name: String) throws {
        let directory = rig.rigDir + "/artifacts/preview"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try browser.screenshot(directory + "/" + name)
        print("MicSwitchTests: screenshot \(directory)/\(name)")
    }
}
