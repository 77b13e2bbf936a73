import Foundation
import RecordKitService
import XCTest

/// The Swift API that mirrors ReplayKit's `exportClip(to:duration:)` (issue 10), on a real
/// recording (the rig's Xvfb and PulseAudio) with only a replay buffer.
final class ReplayExportClipTests: XCTestCase {
    override func setUpWithError() throws {
        let env = ProcessInfo.processInfo.environment
        guard env["DISPLAY"] != nil, env["PULSE_SERVER"] != nil else {
            throw NSError(domain: "ReplayExportClipTests", code: 1, userInfo: [NSLocalizedDescriptionKey:
                "DISPLAY and PULSE_SERVER must point at the test rig: run scripts/test.sh (or source rig-run/env)"])
        }
    }

    func testExportClipWritesTheLastSecondsOfABufferOnlyRecording() throws {
        let root = try ExtensionFixtures.temporaryDirectory(self)
        var arguments = StartArguments()
        arguments.region = "320x240+0+0"
        arguments.noFile = true
        arguments.replayBuffer = 3
        let session = try RecordingSession(arguments: arguments)
        try session.start()
        XCTAssertTrue(session.waitForFirstFrame(timeout: 3))
        Thread.sleep(forTimeInterval: 4)
        let path = try session.exportClip(to: root + "/clip.mp4", duration: 2)
        session.stop()
        XCTAssertEqual(path, root + "/clip.mp4")
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        probe.arguments = ["-v", "error", "-show_entries", "stream=codec_type:format=duration", "-of", "csv=p=0", path]
        let pipe = Pipe()
        probe.standardOutput = pipe
        try probe.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        let lines = out.split(whereSeparator: \.isNewline).map(String.init)
        XCTAssertTrue(lines.contains("video"), out)
        let duration = Double(lines.last ?? "") ?? 0
        XCTAssertGreaterThanOrEqual(duration, 1.9, "2 s asked: \(out)")
        XCTAssertLessThanOrEqual(duration, 4.1, "at most one GOP (2 s) more: \(out)")

        var plain = StartArguments()
        plain.region = "320x240+0+0"
        plain.output = root + "/plain.mp4"
        let other = try RecordingSession(arguments: plain)
        try other.start()
        XCTAssertThrowsError(try other.exportClip(to: nil, duration: nil)) { error in
            XCTAssertEqual((error as? ControlError)?.code, .invalidState, "no replay buffer: \(error)")
        }
        other.stop()
    }
}
