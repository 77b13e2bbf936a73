import Foundation
import XCTest
@testable import RecordKitUploads

/// The journal: atomic records that survive a reload, private files; credentials files.
final class UploadJournalTests: XCTestCase {
    var dir = ""

    override func setUp() {
        dir = NSTemporaryDirectory() + "rk-uploads-unit-\(UUID().uuidString)"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func testRecordRoundTripAndPrivacy() throws {
        let journal = try UploadJournal(directory: dir + "/uploads")
        let file = dir + "/f.bin"
        _ = FileManager.default.createFile(atPath: file, contents: Data(repeating: 7, count: 3 << 20))
        let identity = try FileIdentity.of(file)
        XCTAssertEqual(identity.size, 3 << 20)
        var r = UploadRecord(id: "u1", path: file, target: .s3(bucket: "bkt", prefix: "p"), s3: S3Options(endpoint: "http://127.0.0.1:1"),
                             key: "p/x", recordingId: nil, deleteAfterUpload: false, identity: identity, state: .running,
                             createdAt: "2026-01-01T00:00:00Z", partSize: PartPlan.defaultPartSize)
        r.uploadID = "UPLOAD"
        r.parts = [.init(number: 1, etag: "\"e\"", size: 5, md5: "00")]
        try journal.write(r)
        var st = stat()
        XCTAssertEqual(stat(dir + "/uploads/u1.json", &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
        XCTAssertEqual(stat(dir + "/uploads", &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o700)
        _ = FileManager.default.createFile(atPath: dir + "/uploads/broken.json", contents: Data("{".utf8))
        let (records, problems) = journal.load()
        XCTAssertEqual(records.count, 1)
        XCTAssertEqual(records[0].uploadID, "UPLOAD")
        XCTAssertEqual(records[0].parts, r.parts)
        XCTAssertEqual(problems.count, 1)
    }

    func testFileIdentityNoticesChanges() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let file = dir + "/f.bin"
        _ = FileManager.default.createFile(atPath: file, contents: Data(repeating: 1, count: 1000))
        let identity = try FileIdentity.of(file)
        XCTAssertNoThrow(try identity.check(file))
        let h = FileHandle(forWritingAtPath: file)!
        h.seekToEndOfFile()
        h.write(Data([1, 2, 3]))
        h.closeFile()
        XCTAssertThrowsError(try identity.check(file)) { XCTAssertEqual(($0 as! UploadError).kind, .fileChanged) }
        unlink(file)
        XCTAssertThrowsError(try identity.check(file)) { XCTAssertTrue(($0 as! UploadError).message.contains("gone")) }
    }

    func testCredentialsFromEnvironmentProfileAndPrivateFile() throws {
        try FileManager.default.createDirectory(atPath: dir + "/aws", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/config/recordkit", withIntermediateDirectories: true)
        var c = try S3Credentials.resolve(profile: nil, environment: ["AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S", "HOME": dir])
        XCTAssertEqual(c.accessKeyID, "A")
        try "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n[team]\naws_access_key_id=T\naws_secret_access_key=TS\naws_session_token=TT\n"
            .write(toFile: dir + "/aws/credentials", atomically: true, encoding: .utf8)
        c = try S3Credentials.resolve(profile: "team", environment: ["AWS_SHARED_CREDENTIALS_FILE": dir + "/aws/credentials", "HOME": dir])
        XCTAssertEqual(c.accessKeyID, "T")
        XCTAssertEqual(c.sessionToken, "TT")
        let own = dir + "/config/recordkit/credentials"
        try "[lab]\naws_access_key_id=L\naws_secret_access_key=LEAKME\n".write(toFile: own, atomically: true, encoding: .utf8)
        chmod(own, 0o644)
        let env = ["HOME": dir, "XDG_CONFIG_HOME": dir + "/config"]
        XCTAssertThrowsError(try S3Credentials.resolve(profile: "lab", environment: env)) { e in
            XCTAssertTrue((e as! UploadError).message.contains("chmod 600"))
            XCTAssertFalse((e as! UploadError).message.contains("LEAKME"))
        }
        chmod(own, 0o600)
        XCTAssertEqual(try S3Credentials.resolve(profile: "lab", environment: env).accessKeyID, "L")
        XCTAssertThrowsError(try S3Credentials.resolve(profile: "nobody", environment: env)) { e in
            XCTAssertTrue((e as! UploadError).message.contains("AWS_ACCESS_KEY_ID"))
        }
    }

    func testMultipartETag() {
        // MD5("") twice -> md5(d41d8cd98f00b204e9800998ecf8427e x2) - 2
        let p = UploadRecord.Part(number: 1, etag: "", size: 0, md5: "d41d8cd98f00b204e9800998ecf8427e")
        var q = p
        q.number = 2
        let etag = S3Client.multipartETag([q, p])
        XCTAssertEqual(etag, "\"5873dd45edd01f09c1ef2e7819369e8e-2\"")
        XCTAssertNil(S3Client.multipartETag([UploadRecord.Part(number: 1, etag: "", size: 0, md5: nil)]))
    }
}
