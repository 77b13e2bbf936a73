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
}
