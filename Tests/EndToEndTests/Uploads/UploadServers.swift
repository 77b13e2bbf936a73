import Foundation
import XCTest

/// The real upload servers (scripts/upload-servers.sh) for the upload tests, and the
/// independent client that checks objects (Tests/Fixtures/uploads/s3tool.py, boto3).
enum UploadServers {
    static let key = "rktestkey"
    static let secret = "rktestsecret0123456789"
    static var base: Int { Int(ProcessInfo.processInfo.environment["RK_UPLOAD_PORT_BASE"] ?? "") ?? 19500 }
    static var rclone: String { "http://127.0.0.1:\(base + 1)" }
    static var seaweedfs: String { "http://127.0.0.1:\(base + 2)" }
    static var tus: String { "http://127.0.0.1:\(base + 3)/files/" }
    static let bucket = "recordings"

    static func dir(_ rig: Rig) -> String { (rig.environment["RK_RIG_DIR"] ?? packageRoot.appendingPathComponent("rig-run").path) + "/uploads" }

    /// `upload-servers.sh CMD DIR NAMES…`; fails the test when it fails.
    static func script(_ rig: Rig, _ command: String, _ names: [String] = []) throws {
        let path = packageRoot.appendingPathComponent("scripts/upload-servers.sh").path
        let r = try ProcessRunner.run(path, [command, dir(rig)] + names, environment: rig.environment, timeout: 120)
        guard r.exitCode == 0 else { throw ProcessRunnerError(description: "upload-servers.sh \(command) \(names): \(r)") }
    }

    /// Runs s3tool.py; its trimmed stdout.
    static func tool(_ rig: Rig, _ args: [String]) throws -> String {
        let path = packageRoot.appendingPathComponent("Tests/Fixtures/uploads/s3tool.py").path
        let r = try ProcessRunner.run("/usr/bin/env", ["python3", path] + args,
                                      environment: rig.environment(["RK_S3_KEY": key, "RK_S3_SECRET": secret]), timeout: 120)
        guard r.exitCode == 0 else { throw ProcessRunnerError(description: "s3tool \(args): \(r)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// "SIZE SHA256" of a local file, as s3tool prints an object's.
    static func fingerprint(_ path: String) throws -> String {
        let r = try ProcessRunner.run("/usr/bin/sha256sum", [path], timeout: 60)
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? -1
        return "\(size) \(r.stdout.split(separator: " ").first ?? "")"
    }

    /// A file of `mib` MiB of random bytes (dd from /dev/urandom).
    static func randomFile(_ path: String, mib: Int) throws {
        let r = try ProcessRunner.run("/bin/dd", ["if=/dev/urandom", "of=\(path)", "bs=1M", "count=\(mib)", "status=none"], timeout: 60)
        guard r.exitCode == 0 else { throw ProcessRunnerError(description: "dd: \(r)") }
    }
}

/// A service for upload tests: the test's own recordd with the S3 key pair in its environment
/// and a short retry policy, so failures end within seconds.
class UploadTestCase: EndToEndTestCase {
    var service: ServiceHarness!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try UploadServers.script(rig, "start")
        service = try makeService()
    }

    override func tearDownWithError() throws {
        service?.shutdown()
        try super.tearDownWithError()
    }

    /// After each upload suite its servers stop (the next one starts them again, in seconds):
    /// idle, SeaweedFS alone kept about a fifth of a core busy (17-19 %, `top` during a full run),
    /// which the recording suites between the upload suites could not spare on 2 cores.
    override class func tearDown() {
        if let rig = try? Rig.require() { try? UploadServers.script(rig, "stop") }
        super.tearDown()
    }

    func makeService(_ extra: [String: String] = [:]) throws -> ServiceHarness {
        var env = ["AWS_ACCESS_KEY_ID": UploadServers.key, "AWS_SECRET_ACCESS_KEY": UploadServers.secret,
                   "AWS_SHARED_CREDENTIALS_FILE": workDir + "/no-credentials", "XDG_CONFIG_HOME": workDir + "/config",
                   "RECORDKIT_UPLOAD_RETRY_BASE": "0.2", "RECORDKIT_UPLOAD_ATTEMPTS": "6", "RECORDKIT_UPLOAD_PARTS_IN_FLIGHT": "2"]
        for (k, v) in extra { env[k] = v }
        return try ServiceHarness(rig: rig, workDir: workDir, extraEnvironment: env)
    }

    /// `uploads --json` as objects.
    func uploads() throws -> [[String: Any]] {
        let out = try service.ok(["uploads", "--json"])
        return (try JSONSerialization.jsonObject(with: Data(out.utf8))) as? [[String: Any]] ?? []
    }

    /// The upload `id`, once its state satisfies `predicate` (bounded).
    func waitUpload(_ id: String, timeout: TimeInterval, _ predicate: ([String: Any]) -> Bool) throws -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let u = try? uploads().first(where: { $0["id"] as? String == id }), predicate(u) { return u }
            usleep(200_000)
        }
        return nil
    }

    /// Asserts the object at `key` of `endpoint` has the bytes of `file`.
    func assertObject(_ endpoint: String, _ key: String, equals file: String, file f: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try UploadServers.tool(rig, ["object", endpoint, UploadServers.bucket, key]), try UploadServers.fingerprint(file),
                       "object \(key)", file: f, line: line)
    }
}

/// A JSON number as an Int (0 when absent).
func num(_ v: Any?) -> Int { (v as? NSNumber)?.intValue ?? (v as? Int) ?? 0 }
/// A JSON boolean.
func flag(_ v: Any?) -> Bool? { (v as? NSNumber)?.boolValue ?? (v as? Bool) }
