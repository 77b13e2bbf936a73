import CShims
import Foundation
import Glibc
import XCTest
@testable import RecordKitService

/// Hardening, the parts that need no server: secrets masked in any text, a malformed request's id recovered,
/// stream keys from a file or the environment, the runtime directory trusted only if safe,
/// and a client that checks who listens before it sends anything.
final class HardeningUnitTests: XCTestCase {
    func testEveryURLsKeyIsMaskedInAnyTextMalformedOnesIncluded() {
        let cases: [(String, String)] = [
            ("rtmp://h/live/KEY", "rtmp://h/live/****"),
            ("rtmp://h:1935/live/KEY/", "rtmp://h:1935/live/****"),
            ("error: rtmp://h/live/KEY?x=1 failed", "error: rtmp://h/live/**** failed"),
            ("rtmp://user:pw@h/live/KEY", "rtmp://****@h/live/****"),
            ("rtmp://h/KEY", "rtmp://h/****"),
            ("rtmp://h/?KEY", "rtmp://h/****"),
            ("'rtmps://h/app/inst/KEY'", "'rtmps://h/app/****'"),
            ("rtmp-1 (rtmp://h/live/KEY): live", "rtmp-1 (rtmp://h/live/****): live"),
            ("{\"url\":\"srt://h:9000/x/KEY\"}", "{\"url\":\"srt://h:9000/x/****\"}"),
            ("see http://127.0.0.1:8080/preview/index.html", "see http://127.0.0.1:8080/preview/index.html"),
            ("https://u:secret@example.org/a", "https://****@example.org/a"),
            ("no url here", "no url here"),
        ]
        for (input, want) in cases {
            let masked = SecretRedactor.redact(input)
            XCTAssertEqual(masked, want, input)
            XCTAssertEqual(SecretRedactor.redact(masked), masked, "idempotent: \(input)")
            XCTAssertFalse(masked.contains("KEY") || masked.contains("pw") || masked.contains("secret"), masked)
        }
    }

    func testAMalformedRequestsReplyEchoesItsIdWhenOneCanBeRecovered() {
        func reply(_ line: String) -> ControlReply? {
            if case .rejected(let r) = ControlRequestParser.parse(Array(line.utf8)) { return r }
            return nil
        }
        XCTAssertEqual(reply("{\"v\":1,\"id\":\"7\",\"cmd\":")?.id, "7", "truncated JSON")
        XCTAssertEqual(reply("{\"id\":\"8\",\"cmd\":\"status\"}")?.id, "8", "no v")
        XCTAssertEqual(reply("{\"v\":1,\"id\":\"9\",\"cmd\":42}")?.id, "9", "cmd of the wrong type")
        XCTAssertEqual(reply("garbage \"id\" : \"a\\\"b\" more")?.id, "a\"b", "escaped quote in the id")
        XCTAssertEqual(reply("{\"v\":2,\"id\":\"10\",\"cmd\":\"stop\"}")?.error?.code, .version)
        XCTAssertEqual(reply("{\"v\":2,\"id\":\"10\",\"cmd\":\"stop\"}")?.id, "10")
        XCTAssertNil(reply("{\"v\":1,\"cmd\":")?.id, "no id to echo")
        XCTAssertNil(reply("{\"v\":1,\"id\":\"" + String(repeating: "x", count: 300) + "\"")?.id, "an overlong id is not echoed")
        XCTAssertEqual(reply("[1,2]")?.error?.code, .badRequest)
        if case .blank = ControlRequestParser.parse(Array("  \t".utf8)) {} else { XCTFail("blanks are no request") }
        if case .request(let r) = ControlRequestParser.parse(Array("{\"v\":1,\"id\":\"x\",\"cmd\":\"status\"}".utf8)) {
            XCTAssertEqual(r.cmd, .status)
        } else {
            XCTFail("a valid request")
        }
    }

    func testAStreamKeyFromAFileOrTheEnvironmentIsAppendedToURLsWithoutOne() throws {
        let dir = NSTemporaryDirectory() + "rk-key-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/key"
        try "  live_123_abc \nsecond line\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let loaded = try XCTUnwrap(try RTMPStreamKey.load(file: file, environment: [:]))
        XCTAssertEqual(loaded.key, "live_123_abc")
        XCTAssertNil(loaded.warning)
        chmod(file, 0o644)
        XCTAssertNotNil(try RTMPStreamKey.load(file: file, environment: [:])?.warning, "a key file others can read is warned about")
        XCTAssertEqual(try RTMPStreamKey.load(file: nil, environment: ["RECORDKIT_RTMP_KEY": "envkey"])?.key, "envkey")
        XCTAssertNil(try RTMPStreamKey.load(file: nil, environment: [:]))
        XCTAssertEqual(try RTMPStreamKey.apply("K", to: ["rtmp://h/live", "rtmp://h/live/", "rtmp://h/live/OWN"]),
                       ["rtmp://h/live/K", "rtmp://h/live/K", "rtmp://h/live/OWN"])
        XCTAssertThrowsError(try RTMPStreamKey.apply("K", to: ["rtmp://h/live/OWN"]), "a key used by no URL is an error")
        do { _ = try RTMPStreamKey.load(file: dir + "/missing", environment: [:]); XCTFail("missing file") } catch {
            XCTAssertEqual(error.code, .badArgument)
        }
    }

    func testTheRuntimeDirectoryIsTrustedOnlyWhenSafe() throws {
        let base = "/tmp/rk-unit-\(UUID().uuidString.prefix(6))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        func paths(_ dir: String) -> ServicePaths { ServicePaths(environment: ["XDG_RUNTIME_DIR": base + "/" + dir, "HOME": base]) }
        try FileManager.default.createDirectory(atPath: base + "/fresh", withIntermediateDirectories: true)
        XCTAssertNoThrow(try paths("fresh").preparePrivateRuntimeDirectory(), "a directory it creates is safe")
        try FileManager.default.createDirectory(atPath: base + "/open/recordkit", withIntermediateDirectories: true)
        chmod(base + "/open/recordkit", 0o755)
        try FileManager.default.createDirectory(atPath: base + "/target", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/link", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: base + "/link/recordkit", withDestinationPath: base + "/target")
        for dir in ["open", "link"] {
            XCTAssertThrowsError(try paths(dir).preparePrivateRuntimeDirectory(), dir) { error in
                XCTAssertEqual((error as? ControlError)?.code, .permissionDenied, dir)
            }
            XCTAssertThrowsError(try ControlClient(paths: paths(dir)), dir) { error in
                XCTAssertEqual((error as? ControlError)?.code, .permissionDenied, dir)
            }
        }
        if getuid() == 0 {
            try FileManager.default.createDirectory(atPath: base + "/other/recordkit", withIntermediateDirectories: true)
            chmod(base + "/other/recordkit", 0o700)
            chown(base + "/other/recordkit", 65534, 65534)
            XCTAssertThrowsError(try paths("other").checkRuntimeDirectory()) { error in
                XCTAssertTrue((error as? ControlError)?.message.contains("belongs to uid 65534") == true, "\(error)")
            }
        }
    }

    /// A listener of another uid in a safe directory (a socket moved in): the client refuses
    /// it after connecting, before sending a byte.
    func testTheClientSendsNothingToAServiceOfAnotherUser() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to run a listener as another user") }
        let base = "/tmp/rk-peer-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: base + "/spool", withIntermediateDirectories: true)
        chmod(base + "/spool", 0o777)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let paths = ServicePaths(environment: ["XDG_RUNTIME_DIR": base, "HOME": base])
        try paths.preparePrivateRuntimeDirectory()
        // A listener running as nobody, which counts what it receives.
        let script = """
        import socket,sys,os
        s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
        print("ready", flush=True)
        c,_=s.accept(); c.settimeout(3)
        try: data=c.recv(100)
        except Exception: data=b""
        print("received", len(data), flush=True)
        """
        try script.write(toFile: base + "/listen.py", atomically: true, encoding: .utf8)
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        listener.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", base + "/listen.py", base + "/spool/s.sock"]
        let out = Pipe()
        listener.standardOutput = out
        try listener.run()
        defer { listener.terminate() }
        var ready = false
        for _ in 0..<100 where !ready { usleep(50_000); ready = FileManager.default.fileExists(atPath: base + "/spool/s.sock") }
        XCTAssertTrue(ready)
        XCTAssertEqual(rename(base + "/spool/s.sock", paths.socketPath), 0)
        XCTAssertThrowsError(try ControlClient(paths: paths)) { error in
            XCTAssertEqual((error as? ControlError)?.code, .permissionDenied)
            XCTAssertTrue((error as? ControlError)?.message.contains("uid 65534") == true, "\(error)")
        }
        listener.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(text.contains("received 0"), "nothing was sent to it: \(text)")
    }

    /// The socket path replaced by a symlink to another socket of the same user: the
    /// client refuses it (lstat) before connecting, says why, and the other socket gets nothing.
    func testTheClientRefusesASocketPathThatIsASymlink() throws {
        let base = "/tmp/rk-link-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let paths = ServicePaths(environment: ["XDG_RUNTIME_DIR": base, "HOME": base])
        try paths.preparePrivateRuntimeDirectory()
        // Another socket of this user, which counts the connections it gets.
        let other = base + "/other.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in other.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(fd, 4), 0)
        XCTAssertEqual(symlink(other, paths.socketPath), 0)
        XCTAssertThrowsError(try ControlClient(paths: paths)) { error in
            XCTAssertEqual((error as? ControlError)?.code, .permissionDenied)
            let message = (error as? ControlError)?.message ?? ""
            XCTAssertTrue(message.contains("symbolic link") && message.contains(other) && message.contains("rm \(paths.socketPath)"), message)
        }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&poller, 1, 200), 0, "nothing connected to the other socket")
    }
}
