import Foundation
import RecordKitBuiltins
import RecordKitService
import ExtensionTestSupport
import XCTest

/// The Swift API that mirrors ReplayKit's `exportClip(to:duration:)`, on a real
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
        arguments.outputOptions = ["--region", "320x240+0+0", "--no-file", "--replay-buffer", "3"]
        let session = try RecordingSession(arguments: arguments, builtins: BuiltinExtensions.all)
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
        plain.outputOptions = ["--region", "320x240+0+0", "--output", root + "/plain.mp4"]
        let other = try RecordingSession(arguments: plain, builtins: BuiltinExtensions.all)
        try other.start()
        XCTAssertThrowsError(try other.exportClip(to: nil, duration: nil)) { error in
            XCTAssertEqual((error as? ControlError)?.code, .invalidState, "no replay buffer: \(error)")
        }
        other.stop()
    }

    /// ReplayKit's `stopClipBuffering` / `startClipBuffering` on a running recording with a file
    /// and a replay buffer: stopping empties the buffer (an export then fails, saying why) and
    /// leaves the file alone; starting again buffers from then on only (the whole buffer is
    /// then about the time since); the file has the whole recording. A buffer-only
    /// session with `--no-file --replay-buffer 3` (ReplayKit's `startClipBuffering`) exports.
    func testStopAndStartClipBufferingOnARunningRecording() throws {
        let root = try ExtensionFixtures.temporaryDirectory(self)
        var arguments = StartArguments()
        arguments.outputOptions = ["--region", "320x240+0+0", "--output", root + "/whole.mp4", "--replay-buffer", "30"]
        let session = try RecordingSession(arguments: arguments, builtins: BuiltinExtensions.all)
        try session.start()
        XCTAssertTrue(session.waitForFirstFrame(timeout: 3))
        Thread.sleep(forTimeInterval: 3)
        try session.stopClipBuffering()
        XCTAssertThrowsError(try session.exportClip(to: root + "/none.mp4", duration: nil)) { error in
            XCTAssertTrue("\(error)".contains("clip buffering is stopped"), "says why: \(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/none.mp4"))
        Thread.sleep(forTimeInterval: 1)
        try session.startClipBuffering()
        try session.startClipBuffering()  // already buffering: nothing changes
        Thread.sleep(forTimeInterval: 4)
        let path = try session.exportClip(to: root + "/since.mp4", duration: nil)
        session.stop()
        let clip = try Self.duration(path)
        XCTAssertGreaterThanOrEqual(clip, 1.5, "buffered again since the restart")
        XCTAssertLessThanOrEqual(clip, 4.6, "only since the restart, not the 3 s before the stop")
        XCTAssertGreaterThanOrEqual(try Self.duration(root + "/whole.mp4"), 7, "the file has the whole recording")

        var plain = StartArguments()
        plain.outputOptions = ["--region", "320x240+0+0", "--no-file", "--replay-buffer", "3"]  // ReplayKit's startClipBuffering: a buffer, no file
        let buffering = try RecordingSession(arguments: plain, builtins: BuiltinExtensions.all)
        try buffering.start()
        XCTAssertTrue(buffering.waitForFirstFrame(timeout: 3))
        Thread.sleep(forTimeInterval: 4)
        let last = try buffering.exportClip(to: root + "/last.mp4", duration: 2)
        buffering.stop()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root).sorted(), ["last.mp4", "since.mp4", "whole.mp4"],
                       "the buffer-only session wrote nothing but its clip")
        XCTAssertGreaterThanOrEqual(try Self.duration(last), 1.9)
    }

    private static func duration(_ path: String) throws -> Double {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        probe.arguments = ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]
        let pipe = Pipe()
        probe.standardOutput = pipe
        try probe.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        return Double(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
