import Foundation
import XCTest

/// `recordctl upload` to real S3 servers (rclone, SeaweedFS), checked with boto3: whole
/// objects, resume after `kill -9` and server outages, a server that forgot, pause/resume/cancel.
final class S3UploadTests: UploadTestCase {
    /// 40 MiB (3 parts) to rclone: exit 0, the object's size and SHA-256 equal the file's, the
    /// events and `uploads --json` say completed and verified.
    func testUploadArrivesWholeWithEvents() throws {
        let file = path("clip.bin")
        try UploadServers.randomFile(file, mib: 40)
        let events = try service.watchEvents()
        let out = try service.ok(["upload", file, "--to", "s3://recordings/whole", "--upload-endpoint", UploadServers.rclone,
                                  "--upload-name", "{upload}/{file}", "--json"], timeout: 120)
        let final = (try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual(final["state"] as? String, "completed", out)
        XCTAssertEqual(flag(final["verified"]), true, out)
        let key = try XCTUnwrap(final["key"] as? String)
        XCTAssertTrue(key.hasPrefix("whole/"), key)
        try assertObject(UploadServers.rclone, key, equals: file)
        XCTAssertNotNil(events.waitFor(timeout: 10) { $0["kind"] as? String == "upload-queued" })
        let done = events.waitFor(timeout: 10) { $0["kind"] as? String == "upload-completed" }
        XCTAssertNotNil((done?["upload"] as? [String: Any])?["etag"], "\(String(describing: done))")
        _ = events.finish()
    }

    /// `kill -9` of recordd at random moments of a rate-limited upload (3 runs): the next service
    /// resumes from ListParts (never from the start) and the object is byte for byte the file.
    func testKillNineResumesFromTheServersParts() throws {
        service.shutdown()
        service = try makeService(["RECORDKIT_UPLOAD_RATE": "8M"])  // every recordd of the test: the kills land mid-upload
        let file = path("long.bin")
        try UploadServers.randomFile(file, mib: 48)
        let id = try service.ok(["upload", file, "--to", "s3://recordings/kill", "--upload-endpoint", UploadServers.seaweedfs,
                                 "--upload-part-size", "5", "--no-wait"])
        for run in 0..<3 {
            usleep(UInt32.random(in: 600_000...1_600_000))
            guard let pid = try service.pid() else { break }
            kill(pid, SIGKILL)
            verbose("run \(run): killed recordd \(pid)")
            usleep(200_000)
            let u = try XCTUnwrap(try uploads().first { $0["id"] as? String == id })  // starts a new recordd
            if u["state"] as? String == "completed" { break }
        }
        let final = try XCTUnwrap(try waitUpload(id, timeout: 90) { ($0["state"] as? String).map { ["completed", "failed"].contains($0) } ?? false })
        XCTAssertEqual(final["state"] as? String, "completed", "\(final)")
        XCTAssertEqual(num(final["restarts"]), 0, "resumed from the server's parts, never from the first byte: \(final)")
        try assertObject(UploadServers.seaweedfs, try XCTUnwrap(final["key"] as? String), equals: file)
    }

    /// SeaweedFS stopped for 30 s mid-upload, then started again: the upload retries with
    /// back-off, resumes (the server kept the parts) and completes.
    func testServerDownThirtySecondsMidUpload() throws {
        service.shutdown()
        service = try makeService(["RECORDKIT_UPLOAD_RETRY_BASE": "1", "RECORDKIT_UPLOAD_ATTEMPTS": "12"])
        let file = path("outage.bin")
        try UploadServers.randomFile(file, mib: 30)
        let id = try service.ok(["upload", file, "--to", "s3://recordings/outage", "--upload-endpoint", UploadServers.seaweedfs,
                                 "--upload-part-size", "5", "--upload-rate", "6M", "--no-wait"])
        XCTAssertNotNil(try waitUpload(id, timeout: 30) { num($0["bytesDone"]) > 0 })
        try UploadServers.script(rig, "stop", ["seaweedfs"])
        sleep(30)
        try UploadServers.script(rig, "start", ["seaweedfs"])
        let final = try XCTUnwrap(try waitUpload(id, timeout: 120) { ($0["state"] as? String).map { ["completed", "failed"].contains($0) } ?? false })
        XCTAssertEqual(final["state"] as? String, "completed", "\(final)")
        try assertObject(UploadServers.seaweedfs, try XCTUnwrap(final["key"] as? String), equals: file)
    }

    /// rclone restarted mid-upload forgets the multipart upload: the upload says so, starts over
    /// once and completes whole.
    func testServerThatForgotStartsOver() throws {
        let file = path("forgot.bin")
        try UploadServers.randomFile(file, mib: 30)
        let events = try service.watchEvents()
        let id = try service.ok(["upload", file, "--to", "s3://recordings/forgot", "--upload-endpoint", UploadServers.rclone,
                                 "--upload-part-size", "5", "--upload-rate", "6M", "--no-wait"])
        XCTAssertNotNil(try waitUpload(id, timeout: 30) { num($0["bytesDone"]) >= 10 << 20 })
        try UploadServers.script(rig, "stop", ["rclone"])
        try UploadServers.script(rig, "start", ["rclone"])
        let final = try XCTUnwrap(try waitUpload(id, timeout: 120) { ($0["state"] as? String).map { ["completed", "failed"].contains($0) } ?? false })
        XCTAssertEqual(final["state"] as? String, "completed", "\(final)")
        XCTAssertEqual(num(final["restarts"]), 1, "\(final)")
        XCTAssertNotNil(events.waitFor(timeout: 5) { $0["kind"] as? String == "upload-restarted" })
        try assertObject(UploadServers.rclone, try XCTUnwrap(final["key"] as? String), equals: file)
        _ = events.finish()
    }

    /// Pause, resume, cancel: cancel aborts the multipart upload (ListMultipartUploads is empty).
    func testPauseResumeCancel() throws {
        let file = path("steer.bin")
        try UploadServers.randomFile(file, mib: 40)
        XCTAssertEqual(try UploadServers.tool(rig, ["multipart", UploadServers.seaweedfs, UploadServers.bucket]), "0")
        let id = try service.ok(["upload", file, "--to", "s3://recordings/steer", "--upload-endpoint", UploadServers.seaweedfs,
                                 "--upload-part-size", "5", "--upload-rate", "1M", "--no-wait"])
        XCTAssertNotNil(try waitUpload(id, timeout: 30) { num($0["bytesDone"]) > 0 })
        try service.ok(["uploads", "pause", id])
        let paused = try XCTUnwrap(try waitUpload(id, timeout: 30) { $0["state"] as? String == "paused" })
        sleep(2)
        XCTAssertEqual(num(try uploads().first { $0["id"] as? String == id }?["bytesDone"]), num(paused["bytesDone"]), "no progress while paused")
        try service.ok(["uploads", "resume", id])
        XCTAssertNotNil(try waitUpload(id, timeout: 30) { num($0["bytesDone"]) > num(paused["bytesDone"]) })
        XCTAssertEqual(try UploadServers.tool(rig, ["multipart", UploadServers.seaweedfs, UploadServers.bucket]), "1")
        try service.ok(["uploads", "cancel", id], timeout: 60)
        XCTAssertEqual(try uploads().first { $0["id"] as? String == id }?["state"] as? String, "cancelled")
        XCTAssertEqual(try UploadServers.tool(rig, ["multipart", UploadServers.seaweedfs, UploadServers.bucket]), "0")
        let wait = try service.ctl(["uploads", "wait", id])
        XCTAssertEqual(wait.exitCode, 70, "wait exits 70 unless every upload completed: \(wait)")
    }

    /// A file appended to before its upload ends fails with a clear reason; nothing is completed.
    func testFileModifiedBeforeTheUploadEndsFails() throws {
        let file = path("growing.bin")
        try UploadServers.randomFile(file, mib: 20)
        let id = try service.ok(["upload", file, "--to", "s3://recordings/modified", "--upload-endpoint", UploadServers.rclone,
                                 "--upload-part-size", "5", "--upload-rate", "4M", "--no-wait"])
        XCTAssertNotNil(try waitUpload(id, timeout: 30) { num($0["bytesDone"]) > 0 })
        let h = try XCTUnwrap(FileHandle(forWritingAtPath: file))
        h.seekToEndOfFile()
        h.write(Data(repeating: 1, count: 4096))
        h.closeFile()
        let final = try XCTUnwrap(try waitUpload(id, timeout: 60) { ($0["state"] as? String).map { ["completed", "failed"].contains($0) } ?? false })
        XCTAssertEqual(final["state"] as? String, "failed")
        XCTAssertTrue((final["lastError"] as? String ?? "").contains("changed"), "\(final)")
        XCTAssertEqual(try UploadServers.tool(rig, ["object", UploadServers.rclone, UploadServers.bucket, try XCTUnwrap(final["key"] as? String)]), "missing")
    }
}
