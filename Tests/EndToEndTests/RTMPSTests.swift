import Foundation
import XCTest

/// RTMPS for real, end to end: `recordctl record --rtmp rtmps://…` through the rig's TLS
/// terminator (stunnel4 in front of nginx-rtmp, scripts/rig.sh) with certificates from the rig's
/// own test CA. The stream arrives whole when the CA is given with `--rtmp-ca-file`; verification
/// is on by default (the system's store does not know the test CA); a self-signed and a
/// wrong-host certificate are refused with a message that says so and names the fix; the stream
/// key appears nowhere.
final class RTMPSTests: EndToEndTestCase {
    let fps = 30.0
    let windowColour: UInt32 = 0x3366CC

    // MARK: Through TLS, whole

    func testStreamThroughTLSArrivesWholeWithTheRigsCA() throws {
        let tls = try server()
        let key = "testkey-tls-\(UUID().uuidString.prefix(8).lowercased())"
        defer { RTMPServerRecordings.remove(key, in: tls.recordDir) }
        let rc = try Recordctl(rig)
        let w = try window(size: (320, 240), position: (100, 100), color: windowColour)
        let seconds = 5.0
        let r = try rc.record(["--frame-rate-mode", "constant", "--window", w.id, "--duration", "\(Int(seconds))", "--no-file",
                               "--rtmp", "\(tls.url)/\(key)", "--rtmp-ca-file", tls.caFile], timeout: 60)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        assertNoKey(key, in: r.stdout + r.stderr)

        let recordings = RTMPServerRecordings.wait(for: key, in: tls.recordDir, count: 1)
        XCTAssertEqual(recordings.count, 1, "one publish through TLS, one server recording: \(recordings)")
        let flv = try XCTUnwrap(recordings.first)
        try? FileManager.default.copyItem(atPath: flv, toPath: path("server.flv"))  // kept if the test fails
        let probe = try FFprobe.probe(flv)
        verbose("server recording (through TLS): \(probe)")
        XCTAssertEqual(probe.video.map(\.codecName), ["h264"], "\(probe)")
        XCTAssertEqual(probe.audio.map(\.codecName), ["aac"], "\(probe)")
        let v = try XCTUnwrap(probe.video.first)
        XCTAssertEqual(v.width, 320); XCTAssertEqual(v.height, 240)
        let a = try XCTUnwrap(probe.audio.first)
        XCTAssertEqual(a.sampleRate, 48_000); XCTAssertEqual(a.channels, 2)

        // Every frame and the whole duration (3 % for capture ticks a loaded machine misses,
        // as RTMPTests allows).
        let frames = try XCTUnwrap(v.frameCount, "\(probe)")
        XCTAssertEqual(Double(frames), fps * seconds, accuracy: fps * seconds * 0.03, "frames the server recorded: \(probe)")
        let videoSpan = try FFprobe.packetSpan(flv, streamIndex: v.index)
        XCTAssertEqual(videoSpan.seconds + 1 / fps, seconds, accuracy: 0.1, "video duration on the server: \(videoSpan)")
        let audioSpan = try FFprobe.packetSpan(flv, streamIndex: a.index)
        XCTAssertEqual(audioSpan.seconds, seconds, accuracy: 0.1, "audio duration on the server: \(audioSpan)")

        // Content: the window's colour throughout, both tones in the one mixed track.
        for t in [0.5, 2.5, 4.5] {
            let f = try FrameSampler.frame(flv, at: t)
            assertColour(f, f.fullRect.inset(0.1), is: w.rgb, "server's frame at \(t) s")
        }
        let tones = try ToneAnalyzer.analyze(flv, audioStream: 0, candidates: [rig.appToneHz, rig.micToneHz, 700], start: 0.5)
        verbose("server's audio: \(tones)")
        XCTAssertGreaterThan(tones.seconds, seconds - 1, "\(tones)")
        let app = tones.power[rig.appToneHz] ?? 0, mic = tones.power[rig.micToneHz] ?? 0, none = max(tones.power[700] ?? 0, 1e-12)
        XCTAssertGreaterThan(10 * log10(app / none), 20, "the app tone is in the mix: \(tones)")
        XCTAssertGreaterThan(10 * log10(mic / none), 20, "the mic tone is in the mix: \(tones)")
    }

    // MARK: Refused certificates

    /// Verification is on by default: the rig's good certificate is signed by a CA the system's
    /// store does not hold, so without --rtmp-ca-file it is refused.
    func testCertificateOfAnUnknownCAIsRefusedByDefault() throws {
        let tls = try server()
        try assertStreamFails(url: "\(tls.url)/testkey-tls-s3cr3t", key: "testkey-tls-s3cr3t", extra: [],
                              says: ["TLS certificate was refused", "self-signed or signed by a certificate authority",
                                     "system's trusted certificates", "--rtmp-ca-file"],
                              masked: "\(tls.url)/****")
    }

    func testSelfSignedCertificateIsRefused() throws {
        let tls = try server()
        let url = try rigURL("RK_RTMPS_SELFSIGNED_URL")
        // With the rig's CA given: what is refused is the certificate, not a missing CA.
        try assertStreamFails(url: "\(url)/testkey-tls-s3cr3t", key: "testkey-tls-s3cr3t", extra: ["--rtmp-ca-file", tls.caFile],
                              says: ["TLS certificate was refused", "self-signed", "the CA file \(tls.caFile)", "--rtmp-ca-file"],
                              masked: "\(url)/****")
    }

    /// The CA comes from the config file's `[rtmp] ca-file` here (the chain is trusted, so what
    /// is refused is the name).
    func testWrongHostCertificateIsRefused() throws {
        let tls = try server()
        let url = try rigURL("RK_RTMPS_WRONGHOST_URL")
        let config = path("config")
        try FileManager.default.createDirectory(atPath: config + "/recordkit", withIntermediateDirectories: true)
        try "[rtmp]\nca-file = \"\(tls.caFile)\"\n".write(toFile: config + "/recordkit/config.toml", atomically: true, encoding: .utf8)
        try assertStreamFails(url: "\(url)/testkey-tls-s3cr3t", key: "testkey-tls-s3cr3t", extra: [],
                              environment: rig.environment(["XDG_CONFIG_HOME": config]),
                              says: ["TLS certificate was refused", "made out for another host than '127.0.0.1'"],
                              masked: "\(url)/****")
    }

    func testCAFileThatHoldsNoCertificateIsABadArgument() throws {
        let tls = try server()
        let notPEM = path("not-a-ca.pem")
        try "just text\n".write(toFile: notPEM, atomically: true, encoding: .utf8)
        let rc = try Recordctl(rig)
        for (file, says) in [(notPEM, "holds no PEM certificate"), (path("missing.pem"), "does not exist")] {
            let out = path("x.mp4")
            let r = try rc.record(["--duration", "2", "--output", out, "--rtmp", "\(tls.url)/testkey-tls-s3cr3t", "--rtmp-ca-file", file],
                                  timeout: 30)
            XCTAssertEqual(r.exitCode, Recordctl.Exit.usage, "\(r)")
            XCTAssertTrue(r.stderr.contains(says) && r.stderr.contains(file) && r.stderr.contains("--rtmp-ca-file"), "\(r)")
            assertNoKey("testkey-tls-s3cr3t", in: r.stdout + r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing recorded: \(r)")
        }
    }

    // MARK: The service: `start --rtmp-ca-file`

    /// `recordctl start` sends the CA file to the service with the endpoints: the good server
    /// goes live through TLS and its stream reaches nginx; the self-signed one fails alone
    /// (event, status, stop) with the message; no key anywhere, the service log included.
    func testServiceStartVerifiesWithTheCAFile() throws {
        let tls = try server()
        let selfSigned = try rigURL("RK_RTMPS_SELFSIGNED_URL")
        let service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { service.shutdown() }
        let good = "testkey-tls-svc-\(UUID().uuidString.prefix(8).lowercased())"
        let bad = "testkey-tls-svc-s3cr3t"
        defer { RTMPServerRecordings.remove(good, in: tls.recordDir) }
        let w = try window(size: (320, 240), position: (100, 100), color: windowColour)
        let events = try service.watchEvents()
        try service.ok(["start", "--frame-rate-mode", "constant", "--window", w.id, "--no-file", "--rtmp", "\(tls.url)/\(good)", "--rtmp", "\(selfSigned)/\(bad)",
                        "--rtmp-ca-file", tls.caFile])
        let failed = events.waitFor(timeout: 15) {
            $0["kind"] as? String == "handler" && $0["handler"] as? String == "rtmp-2"
                && ($0["reason"] as? String)?.contains("TLS certificate was refused") == true
        }
        XCTAssertNotNil(failed, "an event says rtmp-2's certificate was refused")
        XCTAssertTrue((failed?["reason"] as? String)?.contains("self-signed") ?? false, "\(failed ?? [:])")
        Thread.sleep(forTimeInterval: 3)
        let text = try service.ok(["status"])
        let lines = text.split(separator: "\n").map(String.init)
        let first = try XCTUnwrap(lines.first { $0.hasPrefix("handler rtmp:") }, text)
        XCTAssertTrue(first.contains("state live") && first.contains("url \(tls.url)/****"), first)
        let second = try XCTUnwrap(lines.first { $0.hasPrefix("handler rtmp-2:") }, text)
        XCTAssertTrue(second.contains("state failed") && second.contains("TLS certificate not trusted"), second)

        let stop = try service.ctl(["stop"])
        XCTAssertEqual(stop.exitCode, Recordctl.Exit.software, "an endpoint failed: \(stop)")
        let log = (try? String(contentsOfFile: service.stateDir + "/recordkit/recordd.log", encoding: .utf8)) ?? ""
        let all = text + stop.stdout + stop.stderr + log + events.finish().map { "\($0)" }.joined()
        assertNoKey(good, in: all)
        assertNoKey(bad, in: all)
        let flv = try XCTUnwrap(RTMPServerRecordings.wait(for: good, in: tls.recordDir, count: 1).first, "the stream reached nginx")
        let probe = try FFprobe.probe(flv)
        let v = try XCTUnwrap(probe.video.first, "\(probe)")
        XCTAssertEqual(v.width, 320, "\(probe)")
        XCTAssertGreaterThan(v.frameCount ?? 0, 60, "at least 2 s of frames through TLS: \(probe)")
        XCTAssertEqual(probe.audio.count, 1, "\(probe)")
        let f = try FrameSampler.frame(flv, at: 1)
        assertColour(f, f.fullRect.inset(0.1), is: w.rgb, "server's frame at 1 s")
    }

    // MARK: - Helpers

    private func server() throws -> (url: String, caFile: String, recordDir: String) {
        (try rigURL("RK_RTMPS_URL"), try rigURL("RK_RTMPS_CA_FILE"), try rigURL("RK_RTMP_REC_DIR"))
    }

    private func rigURL(_ name: String) throws -> String {
        guard let value = rig.environment[name], !value.isEmpty else {
            throw RigError(description: "\(name) not set: run scripts/test.sh (its rig starts stunnel4 in front of nginx-rtmp)")
        }
        return value
    }

    /// `record --rtmp url EXTRA` beside a file, for 3 s: the stream fails with a message that
    /// says `says` and shows `masked`, the file is complete, the key appears nowhere, exit 70.
    private func assertStreamFails(url: String, key: String, extra: [String], environment: [String: String]? = nil,
                                   says: [String], masked: String, file fileName: StaticString = #filePath, line: UInt = #line) throws {
        let rc = try Recordctl(rig)
        let w = try window(size: (320, 240), position: (100, 100), color: windowColour)
        let out = path("file.mp4")
        let r = try rc.record(["--frame-rate-mode", "constant", "--window", w.id, "--duration", "3", "--output", out, "--rtmp", url] + extra,
                              environment: environment, timeout: 60)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.software, "a failed handler is a failed recording (70): \(r)", file: fileName, line: line)
        XCTAssertEqual(r.lastStdoutLine, out, "the file is still printed: \(r)", file: fileName, line: line)
        for phrase in says + [masked] {
            XCTAssertTrue(r.stderr.contains(phrase), "stderr should say '\(phrase)': \(r)", file: fileName, line: line)
        }
        assertNoKey(key, in: r.stdout + r.stderr, file: fileName, line: line)
        let probe = try FFprobe.probe(out)
        let v = try XCTUnwrap(probe.video.first, "\(probe)", file: fileName, line: line)
        XCTAssertEqual(v.duration ?? 0, 3, accuracy: 0.1, "the file is complete: \(probe)", file: fileName, line: line)
        XCTAssertEqual(probe.audio.count, 2, "\(probe)", file: fileName, line: line)
    }

    private func assertNoKey(_ key: String, in text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(text.contains(key), "the stream key '\(key)' appears in the output", file: file, line: line)
    }
}
