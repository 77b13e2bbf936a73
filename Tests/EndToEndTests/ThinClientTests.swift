import Foundation
import XCTest

/// The thin `recordctl` (so it starts in under 300 ms: docs/ENCODING.md, "Start: the thin
/// `recordctl`"): the service verbs run in a process that never loads FFmpeg, X11 or PulseAudio
/// (the dynamic loader's own trace says which files it mapped), and the verbs that need them
/// (`record`, `trim`) still work with the same command line, in recordctl-engine, which
/// recordctl becomes (same pid) from its own directory.
final class ThinClientTests: EndToEndTestCase {
    /// The libraries the thin client must not map.
    private static let engineLibraries = ["libavcodec", "libavformat", "libswscale", "libX11", "libXext", "libpulse"]

    /// Runs `recordctl ARGS` with the loader tracing every file it loads (`LD_DEBUG=files`, into
    /// a file per pid); returns the result and the trace.
    private func traced(_ recordctl: String, _ args: [String], environment: [String: String],
                        timeout: TimeInterval = 60) throws -> (ProcessResult, String) {
        let trace = path("ld-\(UUID().uuidString.prefix(6))")
        var env = environment
        env["LD_DEBUG"] = "files"
        env["LD_DEBUG_OUTPUT"] = trace
        let result = try ProcessRunner.run(recordctl, args, environment: env, timeout: timeout)
        // The loader appends to TRACE.<pid>; recordctl and the engine it becomes share the pid.
        let dir = (trace as NSString).deletingLastPathComponent
        let base = (trace as NSString).lastPathComponent
        let text = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(base + ".") }
            .compactMap { try? String(contentsOfFile: dir + "/" + $0, encoding: .utf8) }.joined(separator: "\n")
        return (result, text)
    }

    /// The engine libraries named in a loader trace.
    private func engineLibraries(in trace: String) -> [String] {
        Self.engineLibraries.filter { trace.contains("file=\($0)") }
    }

    /// `start`, `status` and `stop` map no FFmpeg, X11 or PulseAudio library, and the
    /// recording they drive is a real file.
    func testServiceVerbsLoadNoFFmpegX11OrPulseAudio() throws {
        let service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { service.shutdown() }
        try service.ok(["service", "start"])  // recordd itself loads everything: not traced
        let output = path("thin.mp4")
        for args in [["start", "--region", "320x240+0+0", "--frame-rate-mode", "constant", "--output", output], ["status"], ["stop"]] {
            if args == ["stop"] { Thread.sleep(forTimeInterval: 1.5) }
            let (r, trace) = try traced(service.recordctl, args, environment: service.environment)
            XCTAssertEqual(r.exitCode, 0, "recordctl \(args.joined(separator: " ")): \(r)")
            XCTAssertTrue(trace.contains("file=libswiftCore"), "the loader trace was written: \(trace.prefix(300))")
            XCTAssertEqual(engineLibraries(in: trace), [], "recordctl \(args[0]) maps none of them")
            XCTAssertFalse(trace.contains("recordctl-engine"), "recordctl \(args[0]) runs in recordctl itself")
        }
        let probe = try FFprobe.probe(output)
        XCTAssertEqual(probe.video.first?.width, 320, "\(probe)")
        XCTAssertGreaterThan(probe.video.first?.duration ?? 0, 1.0, "the recording ran from start to stop: \(probe)")
    }

    /// `record --duration 2` and `trim` run through recordctl-engine (the same process: the
    /// trace shows the engine loading libavcodec) and write real files; their exit codes pass
    /// through unchanged (66 for a missing input, 64 for an encoder that cannot open).
    func testRecordAndTrimRunInTheEngineWithTheSameCommandLine() throws {
        let recordctl = try rig.recordctlPath()
        let recorded = path("engine.mp4")
        let (r, trace) = try traced(recordctl, ["record", "--region", "320x240+0+0", "--duration", "2", "--output", recorded],
                                    environment: rig.environment, timeout: 90)
        XCTAssertEqual(r.exitCode, 0, "\(r)")
        XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), recorded, "record prints the file")
        XCTAssertTrue(trace.contains("recordctl-engine") && trace.contains("file=libavcodec"),
                      "recordctl became recordctl-engine, which loaded FFmpeg")
        let probe = try FFprobe.probe(recorded)
        XCTAssertEqual(probe.video.first?.codecName, "h264", "\(probe)")
        XCTAssertEqual(probe.video.first?.duration ?? 0, 2.0, accuracy: 0.2, "\(probe)")
        XCTAssertEqual(probe.audio.count, 2, "\(probe)")

        let trimmed = path("engine-trimmed.mp4")
        let t = try ProcessRunner.run(recordctl, ["trim", recorded, "--start", "0.5", "--end", "1.5", "--output", trimmed],
                                      environment: rig.environment, timeout: 90)
        XCTAssertEqual(t.exitCode, 0, "\(t)")
        XCTAssertTrue(t.stdout.hasPrefix(trimmed + ": "), "trim says what it did: \(t.stdout)")
        XCTAssertEqual(try FFprobe.probe(trimmed).video.first?.duration ?? 0, 1.0, accuracy: 0.1)

        let missing = try ProcessRunner.run(recordctl, ["trim", path("nothing.mp4"), "--start", "0", "--end", "1"],
                                            environment: rig.environment, timeout: 60)
        XCTAssertEqual(missing.exitCode, 66, "input missing: \(missing)")
        let never = path("never.mp4")
        let bad = try ProcessRunner.run(recordctl, ["record", "--region", "320x240+0+0", "--duration", "1", "--encoder", "h264_vaapi",
                                                    "--output", never], environment: rig.environment, timeout: 60)
        XCTAssertEqual(bad.exitCode, 64, "\(bad)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: never), "nothing recorded")
    }

    /// A link to recordctl elsewhere (an install into a bin directory) still finds the engine
    /// beside the real binary; a recordctl copied without its engine says what is missing
    /// (exit 70) and still runs the verbs that need no engine.
    func testTheEngineIsFoundBesideTheResolvedBinary() throws {
        let recordctl = try rig.recordctlPath()
        let bin = path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin + "/recordctl", withDestinationPath: recordctl)
        let linked = try ProcessRunner.run(bin + "/recordctl", ["extensions"], environment: rig.environment, timeout: 60)
        XCTAssertEqual(linked.exitCode, 0, "\(linked)")
        XCTAssertTrue(linked.stdout.contains("file"), "the built-in extensions are listed: \(linked.stdout)")

        let alone = path("alone")
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: recordctl, toPath: alone + "/recordctl")
        let r = try ProcessRunner.run(alone + "/recordctl", ["record", "--duration", "1", "--output", path("none.mp4")],
                                      environment: rig.environment, timeout: 60)
        XCTAssertEqual(r.exitCode, 70, "\(r)")
        XCTAssertTrue(r.stderr.contains("recordctl-engine"), "the message names what is missing: \(r.stderr)")
        let help = try ProcessRunner.run(alone + "/recordctl", ["--help"], environment: rig.environment, timeout: 60)
        XCTAssertEqual(help.exitCode, 0, "\(help)")
        XCTAssertTrue(help.stdout.contains("record") && help.stdout.contains("trim"), "every verb is still listed")
    }
}
