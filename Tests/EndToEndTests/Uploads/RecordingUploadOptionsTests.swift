import Foundation
import XCTest

/// How recordings, replay clips and their hooks reach uploads (docs/UPLOADS.md): a
/// target that cannot work is refused before anything records; a foreground `record --upload`
/// hands its file to the service (endpoint from `AWS_ENDPOINT_URL_S3`); replay clips upload by
/// the config file's `[uploads] replays`; `on-saved` hooks run for each completed upload (kind
/// `upload`); `--delete-after-upload` deletes only a checked file. Objects checked with boto3.
final class RecordingUploadOptionsTests: UploadTestCase {
    /// A malformed target (64), a missing bucket (70) and refused credentials (77) stop `start`
    /// and `record` before they record: no recording, no file, the reason said.
    func testWrongTargetIsAClearErrorBeforeRecording() throws {
        let w = try window(size: (160, 120), position: (40, 40), color: 0x804020)
        let region = "\(w.rect.width)x\(w.rect.height)+\(w.rect.x)+\(w.rect.y)"
        let file = path("never.mp4")

        var r = try service.ctl(["start", "--region", region, "--output", file, "--upload", "ftp://host/x"])
        XCTAssertEqual(r.exitCode, 64, "\(r)")
        XCTAssertTrue(r.stderr.contains("s3://BUCKET"), r.stderr)

        r = try service.ctl(["start", "--region", region, "--output", file, "--upload", "s3://no-such-bucket/x",
                             "--upload-endpoint", UploadServers.rclone])
        XCTAssertEqual(r.exitCode, 70, "\(r)")
        XCTAssertTrue(r.stderr.contains("no-such-bucket") && r.stderr.contains("does not exist") && r.stderr.contains("nothing was recorded"), r.stderr)
        XCTAssertNil(try service.status()["recording"] as? [String: Any], "no recording started")

        r = try service.ctl(["record", "--duration", "2", "--region", region, "--output", file, "--upload", "s3://no-such-bucket/x",
                             "--upload-endpoint", UploadServers.rclone], timeout: 60)
        XCTAssertEqual(r.exitCode, 70, "\(r)")
        XCTAssertTrue(r.stderr.contains("does not exist"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file), "record recorded nothing")

        service.shutdown()
        service = try makeService(["AWS_SECRET_ACCESS_KEY": "WRONGSECRETVALUE"])
        r = try service.ctl(["start", "--region", region, "--output", file, "--upload", "s3://recordings/x", "--upload-endpoint", UploadServers.rclone])
        XCTAssertEqual(r.exitCode, 77, "\(r)")
        XCTAssertTrue(r.stderr.contains("credentials"), r.stderr)
        XCTAssertFalse(r.stderr.contains("WRONGSECRETVALUE"), r.stderr)
        XCTAssertNil(try service.status()["recording"] as? [String: Any], "no recording started")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file), "nothing recorded")
    }

    /// `record --duration 3 --upload` with the endpoint in `AWS_ENDPOINT_URL_S3`: recordctl exits
    /// when the recording is written; the service uploads it; the object is the file, which plays.
    func testForegroundRecordUploadsWithTheEndpointFromTheEnvironment() throws {
        let w = try window(size: (320, 240), position: (40, 40), color: 0x204080)
        let file = path("foreground.mp4")
        var env = service.environment
        env["AWS_ENDPOINT_URL_S3"] = UploadServers.rclone
        let r = try ProcessRunner.run(service.recordctl, ["record", "--duration", "3", "--region", "\(w.rect.width)x\(w.rect.height)+\(w.rect.x)+\(w.rect.y)",
                                                          "--output", file, "--upload", "s3://recordings/fg"], environment: env, timeout: 90)
        XCTAssertEqual(r.exitCode, 0, "\(r)")
        XCTAssertTrue(r.stderr.contains("queued"), r.stderr)
        let wait = try service.ctl(["uploads", "wait"], timeout: 90)
        XCTAssertEqual(wait.exitCode, 0, "\(wait)")
        let u = try XCTUnwrap(try uploads().first { $0["path"] as? String == file }, "the recording was queued")
        XCTAssertEqual(u["state"] as? String, "completed", "\(u)")
        let key = try XCTUnwrap(u["key"] as? String)
        XCTAssertTrue(key.hasPrefix("fg/") && key.hasSuffix("/foreground.mp4"), key)
        try assertObject(UploadServers.rclone, key, equals: file)
        XCTAssertEqual(try FFprobe.probe(file, countFrames: false).video.count, 1)
    }

    /// `[uploads] replays = true` in the config: a saved clip uploads without `--upload`; its
    /// events name the recording; the recording's `on-saved` hook runs for the completed upload
    /// (kind `upload`, the object's URL); a copy uploaded with `--delete-after-upload` is
    /// deleted only after its object was checked, and the object is the clip.
    func testReplayClipsUploadFromTheConfigAndHooksRunForUploads() throws {
        try FileManager.default.createDirectory(atPath: workDir + "/config/recordkit", withIntermediateDirectories: true)
        try """
        [uploads]
        target = "s3://recordings/clips"
        endpoint = "\(UploadServers.rclone)"
        replays = true
        """.write(toFile: workDir + "/config/recordkit/config.toml", atomically: true, encoding: .utf8)
        let w = try window(size: (320, 240), position: (40, 40), color: 0x408020)
        let hookLog = path("hooks.log")
        let events = try service.watchEvents()
        let id = try service.ok(["start", "--no-file", "--replay-buffer", "10", "--region", "\(w.rect.width)x\(w.rect.height)+\(w.rect.x)+\(w.rect.y)",
                                 "--on-saved", "printf '%s %s %s\\n' \"$2\" \"$1\" \"$RECORDKIT_UPLOAD_URL\" >> \(hookLog)"])
        Thread.sleep(forTimeInterval: 4)
        let clip = path("clip.mp4")
        let saved = try service.ctl(["save-replay", "--output", clip])
        XCTAssertEqual(saved.exitCode, 0, "\(saved)")
        XCTAssertTrue(saved.stderr.contains("queued"), "the config's [uploads] replays queued the clip: \(saved)")
        let done = events.waitFor(timeout: 60) { $0["kind"] as? String == "upload-completed" && $0["path"] as? String == clip }
        XCTAssertEqual(done?["recordingId"] as? String, id, "the upload event names the recording: \(String(describing: done))")
        let u = try XCTUnwrap(try uploads().first { $0["path"] as? String == clip })
        let key = try XCTUnwrap(u["key"] as? String)
        XCTAssertTrue(key.hasPrefix("clips/"), key)
        try assertObject(UploadServers.rclone, key, equals: clip)
        XCTAssertEqual(try FFprobe.probe(clip, countFrames: false).video.count, 1)

        // The hook ran for the clip (kind replay) and for its upload (kind upload, with the URL).
        var lines: [String] = []
        for _ in 0..<100 {
            lines = ((try? String(contentsOfFile: hookLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            if lines.contains(where: { $0.hasPrefix("upload ") }) { break }
            usleep(200_000)
        }
        XCTAssertTrue(lines.contains { $0.hasPrefix("replay \(clip)") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("upload \(clip) \(UploadServers.rclone)/recordings/\(key)") }, "\(lines)")
        _ = try service.ok(["stop"], timeout: 60)

        // --delete-after-upload: the local copy goes once the object was checked; the object is the clip.
        let copy = path("copy.mp4")
        try FileManager.default.copyItem(atPath: clip, toPath: copy)
        let out = try service.ok(["upload", copy, "--to", "s3://recordings/del", "--upload-endpoint", UploadServers.rclone,
                                  "--delete-after-upload", "--json"], timeout: 90)
        let final = (try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual(final["state"] as? String, "completed", out)
        XCTAssertEqual(flag(final["verified"]), true, out)
        XCTAssertEqual(flag(final["deleted"]), true, out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy), "the local copy was deleted")
        try assertObject(UploadServers.rclone, try XCTUnwrap(final["key"] as? String), equals: clip)
        let kinds = events.finish().compactMap { $0["kind"] as? String }
        XCTAssertTrue(kinds.contains("upload-queued") && kinds.contains("hook-finished"), "\(kinds)")
    }
}
