import Foundation
import XCTest

/// The tus 1.0 and presigned-URL paths: the bytes arrive whole; the presigned signature is
/// never shown.
final class TusAndPresignedTests: UploadTestCase {
    func testTusUploadArrivesWhole() throws {
        let file = path("tus.bin")
        try UploadServers.randomFile(file, mib: 20)
        let out = try service.ok(["upload", file, "--to", "tus+" + UploadServers.tus, "--json"], timeout: 120)
        let final = (try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual(final["state"] as? String, "completed", out)
        XCTAssertEqual(flag(final["verified"]), true, out)
        // tuspyserver keeps the bytes in DIR/tus/<upload id>: the one of the right size is ours.
        let dir = UploadServers.dir(rig) + "/tus"
        let url = try XCTUnwrap(final["objectURL"] as? String)
        let name = try XCTUnwrap(url.split(separator: "/").last.map(String.init))
        XCTAssertEqual(try UploadServers.fingerprint(dir + "/" + name), try UploadServers.fingerprint(file))
    }

    func testPresignedPutArrivesWholeAndTheSignatureIsNeverShown() throws {
        let file = path("presigned.bin")
        try UploadServers.randomFile(file, mib: 12)
        let key = "presigned/\(UUID().uuidString).bin"
        let url = try UploadServers.tool(rig, ["presign", UploadServers.seaweedfs, UploadServers.bucket, key])
        let signature = try XCTUnwrap(url.components(separatedBy: "X-Amz-Signature=").last)
        let events = try service.watchEvents()
        let refused = try service.ctl(["upload", file, "--to", url])
        XCTAssertEqual(refused.exitCode, 64, "a presigned URL in argv is refused: \(refused)")
        XCTAssertFalse(refused.stderr.contains(signature))
        let urlFile = path("url.txt")
        _ = FileManager.default.createFile(atPath: urlFile, contents: Data((url + "\n").utf8), attributes: [.posixPermissions: 0o600])
        let r = try service.ctl(["upload", file, "--to", "@" + urlFile, "--json"], timeout: 120)
        XCTAssertEqual(r.exitCode, 0, "\(r)")
        try assertObject(UploadServers.seaweedfs, key, equals: file)
        let list = try service.ok(["uploads", "--json"])
        let log = (try? String(contentsOfFile: service.stateDir + "/recordkit/recordd.log", encoding: .utf8)) ?? ""
        let eventText = events.finish().map { "\($0)" }.joined()
        for text in [r.stdout, r.stderr, list, log, eventText] {
            XCTAssertFalse(text.contains(signature), "the presigned signature leaked: \(text.prefix(1000))")
            XCTAssertFalse(text.contains("X-Amz-Credential"), "the credential leaked: \(text.prefix(1000))")
        }
        XCTAssertTrue(list.contains("\"verified\":true") || list.contains("\"verified\" : true"), list)
    }
}
