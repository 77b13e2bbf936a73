import Foundation
import XCTest

/// What goes wrong says so: wrong credentials, a missing bucket, an unreachable endpoint, a
/// malformed target, a missing file: each a clear error and a documented exit code, and no
/// secret in any output, event or the service log.
final class UploadErrorTests: UploadTestCase {
    func testEachFailureHasAClearReasonAnExitCodeAndLeaksNothing() throws {
        let file = path("small.bin")
        try UploadServers.randomFile(file, mib: 1)
        let events = try service.watchEvents()
        var outputs: [String] = []

        // Malformed target: 64, and the presigned signature in it is not echoed.
        var r = try service.ctl(["upload", file, "--to", "ftp://h/x?X-Amz-Signature=SIGSECRET"])
        XCTAssertEqual(r.exitCode, 64, "\(r)")
        XCTAssertTrue(r.stderr.contains("s3://BUCKET"), r.stderr)
        outputs.append(r.stdout + r.stderr)

        // Missing file: 66.
        r = try service.ctl(["upload", path("nope.bin"), "--to", "s3://recordings/x", "--upload-endpoint", UploadServers.rclone])
        XCTAssertEqual(r.exitCode, 66, "\(r)")

        // Missing bucket: 70, says the bucket does not exist.
        r = try service.ctl(["upload", file, "--to", "s3://no-such-bucket/x", "--upload-endpoint", UploadServers.rclone], timeout: 60)
        XCTAssertEqual(r.exitCode, 70, "\(r)")
        XCTAssertTrue((r.stdout + r.stderr).contains("no-such-bucket"), "\(r)")
        outputs.append(r.stdout + r.stderr)

        // Unreachable endpoint (nothing listens): retried, then 70 with "cannot reach" and the
        // reason. Two attempts keep the retry's back-off short.
        service.shutdown()
        service = try makeService(["RECORDKIT_UPLOAD_ATTEMPTS": "2"])
        r = try service.ctl(["upload", file, "--to", "s3://recordings/x", "--upload-endpoint", "http://127.0.0.1:\(UploadServers.base + 49)"], timeout: 90)
        XCTAssertEqual(r.exitCode, 70, "\(r)")
        XCTAssertTrue((r.stdout + r.stderr).contains("cannot reach 127.0.0.1:\(UploadServers.base + 49): connection refused"), "\(r)")
        XCTAssertTrue((r.stdout + r.stderr).contains("2 attempts"), "retried once before giving up: \(r)")
        outputs.append(r.stdout + r.stderr)

        // Wrong credentials: a service whose secret is wrong; 70, says to check the credentials.
        service.shutdown()
        service = try makeService(["AWS_SECRET_ACCESS_KEY": "WRONGSECRETVALUE"])
        r = try service.ctl(["upload", file, "--to", "s3://recordings/x", "--upload-endpoint", UploadServers.rclone], timeout: 60)
        XCTAssertEqual(r.exitCode, 70, "\(r)")
        XCTAssertTrue((r.stdout + r.stderr).contains("credentials"), "\(r)")
        outputs.append(r.stdout + r.stderr)

        // No credentials at all: 77 at once.
        service.shutdown()
        service = try makeService(["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""])
        r = try service.ctl(["upload", file, "--to", "s3://recordings/x", "--upload-endpoint", UploadServers.rclone])
        XCTAssertEqual(r.exitCode, 77, "\(r)")
        outputs.append(r.stdout + r.stderr + (try service.ctl(["uploads", "--json"]).stdout))

        let log = (try? String(contentsOfFile: service.stateDir + "/recordkit/recordd.log", encoding: .utf8)) ?? ""
        let eventText = events.finish().map { "\($0)" }.joined()
        for secret in [UploadServers.secret, "WRONGSECRETVALUE", "SIGSECRET"] {
            for text in outputs + [log, eventText] { XCTAssertFalse(text.contains(secret), "\(secret) leaked: \(text.prefix(2000))") }
        }
    }
}
