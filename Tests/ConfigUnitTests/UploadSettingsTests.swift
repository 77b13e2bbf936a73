import RecordKitConfig
import XCTest

/// The config file's `[uploads]` table: every key read, every bad value a message with the file
/// and line that says what to write.
final class UploadSettingsTests: XCTestCase {
    func testReadsEveryKey() throws {
        let file = try ConfigFile(text: """
            [uploads]
            target = "s3://team-recordings/desk-7"
            endpoint = "http://127.0.0.1:9000"
            region = "eu-west-1"
            addressing = "path"
            credentials-profile = "team"
            name = "{host}/{file}"
            part-size = 32
            delete-after-upload = true
            recordings = true
            replays = true
            """, path: "/c.toml")
        var expected = UploadSettings()
        expected.target = "s3://team-recordings/desk-7"
        expected.endpoint = "http://127.0.0.1:9000"
        expected.region = "eu-west-1"
        expected.addressing = "path"
        expected.credentialsProfile = "team"
        expected.name = "{host}/{file}"
        expected.partSizeMiB = 32
        expected.deleteAfterUpload = true
        expected.recordings = true
        expected.replays = true
        XCTAssertEqual(file.uploads, expected)
        XCTAssertEqual(try ConfigFile(text: "", path: "/c.toml").uploads, UploadSettings(), "no table: nothing uploads")
    }

    func testBadValuesNameTheLineAndTheFix() {
        let cases: [(String, String)] = [
            ("[uploads]\ntarget = \"https://h/x?X-Amz-Signature=abc\"", "line 2: uploads.target must be s3://"),
            ("[uploads]\nendpoint = \"http://k:s@h:9000\"", "line 2: uploads.endpoint must be an http(s) URL"),
            ("[uploads]\naddressing = \"sideways\"", "line 2: uploads.addressing must be"),
            ("[uploads]\npart-size = 2", "line 2: uploads.part-size must be MiB"),
            ("[uploads]\nreplays = \"yes\"", "line 2: uploads.replays must be true or false"),
            ("[uploads]\nbucket = \"x\"", "line 2: unknown key \"bucket\" in [uploads]"),
            ("[uploads]\nreplays = true", "[uploads] recordings or replays needs target"),
            ("uploads = 3", "uploads must be a table"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try ConfigFile(text: text, path: "/c.toml"), text) { error in
                let m = (error as? ConfigError)?.message ?? "\(error)"
                XCTAssertTrue(m.contains("/c.toml") && m.contains(message), "\(text): \(m)")
                XCTAssertFalse(m.contains("X-Amz-Signature=abc") || m.contains("k:s@"), "no secret echoed: \(m)")
            }
        }
    }
}
