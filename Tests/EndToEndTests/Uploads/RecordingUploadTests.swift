import Foundation
import XCTest

/// `recordctl start --upload`: the recording reaches the bucket at stop; with `--split-every`,
/// each part reaches it while the recording goes on. Checked with boto3 (size, SHA-256) and
/// ffprobe (the uploaded bytes are the local movie's, which plays).
final class RecordingUploadTests: UploadTestCase {
    func testSplitPartsArriveWhileRecordingAndTheRecordingArrivesWhole() throws {
        let w = try window(size: (320, 240), position: (40, 40), color: 0x208040)
        let events = try service.watchEvents()
        let file = path("desk.mp4")
        try service.ok(["start", "--region", "\(w.rect.width)x\(w.rect.height)+\(w.rect.x)+\(w.rect.y)", "--output", file,
                        "--split-every", "2", "--upload", "s3://recordings/desk-7", "--upload-endpoint", UploadServers.rclone])
        // A part closed and uploaded while the recording is still running.
        let early = events.waitFor(timeout: 60) { $0["kind"] as? String == "upload-completed" }
        XCTAssertNotNil(early, "a split part reached the bucket during the recording")
        XCTAssertNotNil(try service.status()["recording"] as? [String: Any], "still recording when the first part arrived")
        Thread.sleep(forTimeInterval: 1)
        _ = try service.ok(["stop"], timeout: 90)
        let wait = try service.ctl(["uploads", "wait", "--json"], timeout: 120)
        XCTAssertEqual(wait.exitCode, 0, "\(wait)")
        let uploads = try self.uploads()
        XCTAssertGreaterThanOrEqual(uploads.count, 2, "\(uploads)")
        var paths = Set<String>()
        for u in uploads {
            XCTAssertEqual(u["state"] as? String, "completed", "\(u)")
            let local = try XCTUnwrap(u["path"] as? String)
            let key = try XCTUnwrap(u["key"] as? String)
            XCTAssertTrue(key.hasPrefix("desk-7/"), key)
            XCTAssertTrue(key.contains((u["recordingId"] as? String) ?? "?"), "the key names the recording: \(key)")
            try assertObject(UploadServers.rclone, key, equals: local)
            let probe = try FFprobe.probe(local, countFrames: false)
            XCTAssertEqual(probe.video.count, 1, "\(local): \(probe)")
            paths.insert(local)
        }
        XCTAssertEqual(paths.count, uploads.count, "each file uploaded once")
        let parts = try FileManager.default.contentsOfDirectory(atPath: workDir).filter { $0.hasPrefix("desk-") && $0.hasSuffix(".mp4") }
        XCTAssertEqual(Set(parts.map { path($0) }), paths, "every part of the recording was uploaded")
        _ = events.finish()
    }

    /// A recording's own `--on-saved` hook runs for its upload even when `recordd` was killed
    /// mid-upload: the commands are kept in the upload's journal, and the restarted service
    /// that completes the upload runs them (kind `upload`, the object's URL).
    func testTheRecordingsHookRunsForAnUploadThatARestartedServiceCompletes() throws {
        service.shutdown()
        service = try makeService(["RECORDKIT_UPLOAD_RATE": "48K"])  // slow enough that the kill lands mid-upload
        let w = try window(size: (320, 240), position: (40, 40), color: 0x802040)
        let file = path("hooked.mp4")
        let hookLog = path("hooks.log")
        try service.ok(["start", "--region", "\(w.rect.width)x\(w.rect.height)+\(w.rect.x)+\(w.rect.y)", "--output", file,
                        "--upload", "s3://recordings/hooked", "--upload-endpoint", UploadServers.rclone,
                        "--on-saved", "printf '%s %s %s\\n' \"$2\" \"$1\" \"$RECORDKIT_UPLOAD_URL\" >> \(hookLog)"])
        Thread.sleep(forTimeInterval: 3)
        _ = try service.ok(["stop"], timeout: 60)
        let queued = try XCTUnwrap(try uploads().first { $0["path"] as? String == file }, "the recording was queued at stop")
        let id = try XCTUnwrap(queued["id"] as? String)
        if queued["state"] as? String != "completed", let pid = try service.pid() {
            kill(pid, SIGKILL)
            verbose("killed recordd \(pid) with the upload \(queued["state"] ?? "?") at \(queued["bytesDone"] ?? "?") bytes")
            usleep(200_000)
        }
        // The next request starts a new recordd, which resumes the upload from its journal.
        let final = try XCTUnwrap(try waitUpload(id, timeout: 120) { ($0["state"] as? String).map { ["completed", "failed"].contains($0) } ?? false })
        XCTAssertEqual(final["state"] as? String, "completed", "\(final)")
        let key = try XCTUnwrap(final["key"] as? String)
        try assertObject(UploadServers.rclone, key, equals: file)
        var lines: [String] = []
        for _ in 0..<100 {
            lines = ((try? String(contentsOfFile: hookLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            if lines.contains(where: { $0.hasPrefix("upload ") }) { break }
            usleep(200_000)
        }
        XCTAssertTrue(lines.contains { $0.hasPrefix("recording \(file)") }, "the hook ran for the recording: \(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("upload \(file) \(UploadServers.rclone)/recordings/\(key)") },
                      "the recording's hook ran for its upload after the restart: \(lines)")
    }
}
