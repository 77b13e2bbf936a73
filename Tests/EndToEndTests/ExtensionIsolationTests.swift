import Foundation
import XCTest

/// Extension isolation (docs/EXTENSIONS.md): an extension that crashes, hangs, eats memory or
/// writes garbage is ended with an error that says which and why, while the file recording beside
/// it completes and is correct. Setup mistakes are refused before anything is recorded.
final class ExtensionIsolationTests: EndToEndTestCase {
    private let colour: UInt32 = 0x3366CC

    func testCrashingExtensionIsEndedAndTheFileIsComplete() throws {
        try assertIsolated(mode: "crash", reason: "crashed with signal 11 (SIGSEGV) in processSampleBuffer")
    }

    func testHangingExtensionIsEndedAfterItsCallTimeoutAndTheFileIsComplete() throws {
        try assertIsolated(mode: "hang", reason: "timed out after 300 ms in processSampleBuffer")
    }

    func testMemoryHungryExtensionIsEndedAtItsLimitAndTheFileIsComplete() throws {
        try assertIsolated(mode: "hungry", reason: "exceeded its memory limit of 64 MB")
    }

    func testGarbageWritingExtensionIsEndedAndTheFileIsComplete() throws {
        try assertIsolated(mode: "garbage", reason: "sent a malformed message")
    }

    // MARK: Setup checked before recording starts

    func testWrongSetupValueTypeIsRefusedBeforeRecording() throws {
        try assertRefused(["--extension", "misbehave", "--setup", "after=soon"],
                          mentions: "setup key 'after' of extension 'misbehave' must be an integer (int), got 'soon'")
    }

    func testMissingRequiredSetupKeyIsRefusedBeforeRecording() throws {
        try assertRefused(["--extension", "needs-key"], mentions: "extension 'needs-key' needs setup key 'target'")
    }

    func testUnknownExtensionIsRefusedBeforeRecording() throws {
        try assertRefused(["--extension", "no-such-extension"], mentions: "no extension named 'no-such-extension'")
    }

    func testBrokenManifestIsRefusedBeforeRecordingAndListedWithItsReason() throws {
        let dir = try extensionsDirectory()
        let listing = try ProcessRunner.run(try rig.recordctlPath(), ["extensions", "--extensions-dir", dir], environment: environment(), timeout: 30)
        XCTAssertEqual(listing.exitCode, 0, "\(listing)")
        XCTAssertTrue(listing.stdout.contains("misbehave 1.0.0 (--extensions-dir: \(dir)/misbehave)"), "\(listing)")
        XCTAssertTrue(listing.stdout.contains("broken (--extensions-dir: \(dir)/broken)\n  cannot load: \(dir)/broken/manifest.json: input.video.format: \"rgb\" is not one of"),
                      "a broken extension is listed with why: \(listing)")
        try assertRefused(["--extension", "broken"], mentions: "extension 'broken' cannot load: \(dir)/broken/manifest.json: input.video.format")
    }

    // MARK: Helpers

    /// Extensions for these tests: `misbehave` (the fixture program, raw video, tight limits),
    /// `needs-key` (a required setup key) and `broken` (a manifest that breaks the schema).
    private func extensionsDirectory() throws -> String {
        let dir = path("extensions")
        let program = URL(fileURLWithPath: try rig.recordctlPath()).deletingLastPathComponent().appendingPathComponent("rk-test-extension").path
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw RigError(description: "rk-test-extension not found at \(program): build it (swift build)")
        }
        func make(_ name: String, _ manifest: String) throws {
            try FileManager.default.createDirectory(atPath: "\(dir)/\(name)", withIntermediateDirectories: true)
            try manifest.write(toFile: "\(dir)/\(name)/manifest.json", atomically: true, encoding: .utf8)
            try? FileManager.default.createSymbolicLink(atPath: "\(dir)/\(name)/program", withDestinationPath: program)
        }
        let setup = #"{"mode": {"type": "string", "default": "log"}, "after": {"type": "int", "default": 10}, "log": {"type": "string", "default": ""}}"#
        try make("misbehave", """
            {"name": "misbehave", "version": "1.0.0", "entry": {"executable": "program"},
             "input": {"video": {"format": "raw", "pixelFormat": "bgr0"}}, "setup": \(setup),
             "limits": {"memoryMB": 64, "callTimeoutMs": 300, "lifecycleTimeoutMs": 5000}}
            """)
        try make("needs-key", """
            {"name": "needs-key", "version": "1.0.0", "entry": {"executable": "program"},
             "input": {"video": {"format": "raw", "pixelFormat": "bgr0"}},
             "setup": {"target": {"type": "string", "required": true, "description": "where to send"}}}
            """)
        try make("broken", """
            {"name": "broken", "version": "1.0.0", "entry": {"executable": "program"}, "input": {"video": {"format": "rgb"}}}
            """)
        return dir
    }

    /// A private data directory; no Swift crash backtraces (the crashing fixture's would spend
    /// seconds of CPU symbolicating, which on a 2-core machine delays the recording it tests).
    private func environment() -> [String: String] {
        rig.environment(["XDG_DATA_HOME": path("data"), "XDG_VIDEOS_DIR": path("videos"), "SWIFT_BACKTRACE": "enable=no"])
    }

    /// Records 4 s of a window into a file beside the `misbehave` extension in `mode`: the
    /// extension is ended with `reason`, recordctl says so (exit 70: a handler failed), and the
    /// file is complete and correct.
    private func assertIsolated(mode: String, reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = try extensionsDirectory()
        let w = try window(size: (640, 480), position: (100, 100), color: colour)
        let out = path("\(mode).mp4")
        let r = try Recordctl(rig).record(["--frame-rate-mode", "constant", "--window", w.id, "--duration", "4", "--output", out, "--extensions-dir", dir,
                                           "--extension", "misbehave", "--setup", "mode=\(mode)", "--setup", "after=5"],
                                          environment: environment(), timeout: 90)
        XCTAssertEqual(r.exitCode, 70, "a failed handler makes the exit code 70: \(r)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains("handler 'misbehave' failed: extension process "), "the failure is an event: \(r)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains(reason), "the reason says \"\(reason)\": \(r)", file: file, line: line)
        XCTAssertEqual(r.lastStdoutLine, out, "the file's path is printed: \(r)", file: file, line: line)

        let probe = try FFprobe.probe(out)
        XCTAssertEqual(probe.video.count, 1, "\(probe)", file: file, line: line)
        XCTAssertEqual(probe.audio.count, 2, "\(probe)", file: file, line: line)
        let v = try XCTUnwrap(probe.video.first, file: file, line: line)
        XCTAssertEqual(v.width, 640, file: file, line: line)
        XCTAssertEqual(v.height, 480, file: file, line: line)
        let duration = try XCTUnwrap(v.duration ?? probe.formatDuration, file: file, line: line)
        XCTAssertEqual(duration, 4, accuracy: 0.1, "the file runs the whole 4 s, not until the extension failed: \(probe)", file: file, line: line)
        for t in [0.5, 2.0, 3.7] {
            let f = try FrameSampler.frame(out, at: t)
            assertColour(f, f.fullRect.inset(0.1), is: w.rgb, "frame at \(t) s", file: file, line: line)
        }
        try assertTones(out, probe, file: file, line: line)
    }

    /// `recordctl record ARGS` exits 64 with `mentions` on stderr, and records nothing.
    private func assertRefused(_ arguments: [String], mentions: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = try extensionsDirectory()
        let out = path("refused.mp4")
        let r = try Recordctl(rig).record(["--frame-rate-mode", "constant", "--duration", "2", "--output", out, "--extensions-dir", dir] + arguments,
                                          environment: environment(), timeout: 30)
        XCTAssertEqual(r.exitCode, 64, "\(r)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains(mentions), "stderr says \"\(mentions)\": \(r)", file: file, line: line)
        XCTAssertEqual(r.stdout, "", "nothing recorded: \(r)", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "no file: \(r)", file: file, line: line)
        XCTAssertLessThan(r.seconds, 10, "refused before recording: \(r)", file: file, line: line)
    }
}
