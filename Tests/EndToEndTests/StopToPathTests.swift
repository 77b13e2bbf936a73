import Foundation
import XCTest

/// `recordctl stop --output PATH` (ReplayKit's `stopRecording(withOutput:)`): the
/// recording is delivered there, across file systems too, atomically; an existing file is never
/// replaced without `--overwrite`, and a refused destination leaves the recording running.
final class StopToPathTests: EndToEndTestCase {
    private var service: ServiceHarness!

    override func setUpWithError() throws {
        try super.setUpWithError()
        service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { [service] in service?.shutdown() }
    }

    /// An existing destination is refused (exit 73) and the recording goes on; then `stop
    /// --output` onto another file system (/dev/shm, tmpfs) delivers the complete file there
    /// and nothing stays at the first destination or beside the new one.
    func testStopDeliversAcrossFileSystemsAndNeverReplacesWithoutOverwrite() throws {
        let first = path("first.mp4")
        try service.ok(["start", "--region", "320x240+0+0", "--output", first])
        let existing = path("existing.mp4")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        Thread.sleep(forTimeInterval: 2)
        let refused = try service.ctl(["stop", "--output", existing])
        XCTAssertEqual(refused.exitCode, 73, "an existing file is refused: \(refused)")
        XCTAssertTrue(refused.stderr.contains("--overwrite"), "the message says what to do: \(refused.stderr)")
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "keep me", "the existing file is untouched")
        XCTAssertEqual((try service.status()["recording"] as? [String: Any])?["state"] as? String, "recording", "still recording")

        let shmDir = "/dev/shm/rk-stop-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: shmDir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: shmDir) }
        let destination = shmDir + "/delivered.mp4"
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try service.ok(["stop", "--output", destination]), destination, "stop prints where the file went")
        XCTAssertFalse(FileManager.default.fileExists(atPath: first), "nothing left at the first destination")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: shmDir), ["delivered.mp4"], "no temporary file left")
        let probe = try FFprobe.probe(destination)
        XCTAssertEqual(probe.video.count, 1)
        XCTAssertGreaterThan(probe.video.first?.duration ?? 0, 2.5, "the whole recording: \(probe)")
        let last = try service.status()["last"] as? [String: Any]
        XCTAssertEqual(last?["outputs"] as? [String], [destination], "status names the delivered file")
    }

    /// `--overwrite` replaces an existing file (same file system) with the recording.
    func testStopWithOverwriteReplacesTheFile() throws {
        try service.ok(["start", "--region", "320x240+0+0", "--output", path("rec.mp4")])
        let existing = path("replace-me.mp4")
        try Data("old".utf8).write(to: URL(fileURLWithPath: existing))
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(try service.ok(["stop", "--output", existing, "--overwrite"]), existing)
        XCTAssertEqual(try FFprobe.probe(existing).video.count, 1, "the old file was replaced by the recording")
    }
}
