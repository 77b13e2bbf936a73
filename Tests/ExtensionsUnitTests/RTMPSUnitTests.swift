import Foundation
import RecordKit
import RecordKitBuiltins
import RecordKitControl
import RecordKitMedia
import RecordKitService
@testable import RTMPUploadExtension
import XCTest

/// RTMPS without a server: the TLS options FFmpeg gets, how GnuTLS's words
/// are classified, the messages (what was refused, the fix, never the key), the CA file check,
/// and `--rtmp-ca-file` reaching the `rtmp` extension's setup. RTMPSTests (end to end) runs
/// the real TLS servers.
final class RTMPSUnitTests: XCTestCase {
    func testRTMPSVerifiesTheCertificateAndPlainRTMPGetsNoTLSOptions() throws {
        var tls = try RTMPEndpoint(parsing: "rtmps://127.0.0.1:19360/live/secretkey-9")
        XCTAssertEqual(tls.ffmpegOptions["tls_verify"], "1", "verification is on by default")
        XCTAssertNil(tls.ffmpegOptions["ca_file"], "no CA file: GnuTLS uses the system's store")
        tls.caFile = "/etc/rk/ca.pem"
        XCTAssertEqual(tls.ffmpegOptions["ca_file"], "/etc/rk/ca.pem")
        var plain = try RTMPEndpoint(parsing: "rtmp://127.0.0.1/live/secretkey-9")
        plain.caFile = "/etc/rk/ca.pem"
        XCTAssertNil(plain.ffmpegOptions["tls_verify"], "rtmp:// has no tls layer: the option would be unknown")
        XCTAssertNil(plain.ffmpegOptions["ca_file"])
    }

    /// The exact lines Debian's FFmpeg 5.1 (GnuTLS) logs, as seen against the rig's servers.
    func testGnuTLSRefusalsAreClassified() {
        let untrusted = ["[tls @ 0x5585fff15200] Peer certificate failed verification",
                         "[rtmps @ 0x5585fff186c0] Cannot open connection tls://127.0.0.1:19561"]
        let wrongHost = ["[tls @ 0x5586e61d2800] The certificate's owner does not match hostname 127.0.0.1",
                         "[rtmps @ 0x5586e61d3880] Cannot open connection tls://127.0.0.1:19562"]
        let handshake = ["[tls @ 0x1] An unexpected TLS packet was received."]
        let eio = MediaError("connecting", code: -EIO)
        XCTAssertEqual(RTMPFailure.connecting(eio, log: untrusted, timedOut: false, timeout: 10).reason, .certificateUntrusted)
        XCTAssertEqual(RTMPFailure.connecting(eio, log: wrongHost, timedOut: false, timeout: 10).reason, .certificateWrongHost)
        XCTAssertEqual(RTMPFailure.connecting(eio, log: handshake, timedOut: false, timeout: 10).reason,
                       .tlsFailed("An unexpected TLS packet was received."))
        XCTAssertEqual(RTMPFailure.connecting(eio, log: [], timedOut: false, timeout: 10).reason, .rejected(serverMessage: nil),
                       "without TLS words, EIO stays nginx-rtmp's refused publish")
    }

    func testRefusalMessagesSayWhatAndHowToFixItWithoutTheKey() throws {
        var endpoint = try RTMPEndpoint(parsing: "rtmps://127.0.0.1:19361/live/secretkey-9")
        let byDefault = RTMPFailure(reason: .certificateUntrusted).firstConnectionError(endpoint).message
        endpoint.caFile = "/tmp/rk-ca.pem"
        let withFile = RTMPFailure(reason: .certificateUntrusted).firstConnectionError(endpoint).message
        let wrongHost = RTMPFailure(reason: .certificateWrongHost).firstConnectionError(endpoint).message
        for message in [byDefault, withFile, wrongHost] {
            XCTAssertTrue(message.contains("rtmps://127.0.0.1:19361/live/****"), message)
            XCTAssertTrue(message.contains("TLS certificate was refused"), message)
            XCTAssertFalse(message.contains("secretkey"), message)
        }
        XCTAssertTrue(byDefault.contains("self-signed") && byDefault.contains("system's trusted certificates")
                      && byDefault.contains("--rtmp-ca-file"), byDefault)
        XCTAssertTrue(withFile.contains("the CA file /tmp/rk-ca.pem"), withFile)
        XCTAssertTrue(wrongHost.contains("another host than '127.0.0.1'"), wrongHost)
        XCTAssertEqual(RTMPFailure(reason: .certificateWrongHost).summary, "TLS certificate for another host")
    }

    func testCAFileIsCheckedBeforeConnecting() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rk-rtmps-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = dir + "/ca.pem", text = dir + "/text.pem"
        try "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "hello\n".write(toFile: text, atomically: true, encoding: .utf8)
        XCTAssertNoThrow(try RTMPCAFile.check(good))
        for (path, says) in [(text, "holds no PEM certificate"), (dir + "/none.pem", "does not exist"), (dir, "is a directory"),
                             ("ca.pem", "not an absolute path")] {
            XCTAssertThrowsError(try RTMPCAFile.check(path), path) { error in
                let e = error as? BroadcastError
                XCTAssertEqual(e?.kind, .invalidSetup)
                XCTAssertTrue(e?.message.contains(says) == true && e?.message.contains("--rtmp-ca-file") == true, "\(String(describing: e))")
            }
        }
    }

    func testCAFileReachesTheRTMPExtensionsOnly() throws {
        var arguments = StartArguments()
        arguments.outputOptions = ["--no-file", "--rtmp", "rtmps://127.0.0.1/live/secretkey-9", "--srt", "srt://127.0.0.1:9000",
                                   "--rtmp-ca-file", "/etc/rk/ca.pem"]
        let decoded = try JSONDecoder().decode(StartArguments.self, from: JSONEncoder().encode(arguments))
        XCTAssertEqual(decoded.outputOptions, arguments.outputOptions, "start sends them to the service")
        let requests = try decoded.extensionRequests(catalog: BuiltinExtensions.catalog()).requests
        XCTAssertEqual(requests.first { $0.name == "rtmp" }?.setup["caFile"], "/etc/rk/ca.pem")
        XCTAssertNil(requests.first { $0.name == "srt" }?.setup["caFile"])
        let handler = try RTMPUploadManifest.handler(setup: SetupInfo(["url": "rtmps://127.0.0.1/live/secretkey-9", "caFile": "/etc/rk/ca.pem"]))
        XCTAssertEqual(handler.options.caFile, "/etc/rk/ca.pem")
        XCTAssertNil(try RTMPUploadManifest.handler(setup: SetupInfo(["url": "rtmps://127.0.0.1/live/k", "caFile": ""])).options.caFile)
    }
}
