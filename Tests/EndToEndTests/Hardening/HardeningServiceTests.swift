import Foundation
import Glibc
import XCTest

/// Hardening, the service side: nothing a client does (random and malformed control traffic,
/// pause/resume storms, 40 shutdowns), no kill -9 and no full disk crashes or wedges `recordd`,
/// loses a recording silently, or shows a stream key. Each test is bounded in time (well under a
/// minute) and asserts that the service still answers afterwards.
final class HardeningServiceTests: EndToEndTestCase {
    private var service: ServiceHarness!

    override func setUpWithError() throws {
        try super.setUpWithError()
        service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { [service] in service?.shutdown() }
    }

    /// Random valid and malformed lines on several connections, with pause/resume storms of
    /// hundreds a second, against a recording: every line answered (a malformed one with its id
    /// when it had one), the service never restarts, and the file plays.
    func testRandomControlTrafficAndPauseResumeStormsNeverCrashTheService() throws {
        let output = path("storm.mp4")
        try service.ok(["start", "--region", "320x240+0+0", "--output", output, "--no-mic"])
        let pid = try XCTUnwrap(try service.pid())
        var rng = SystemRandomNumberGenerator()
        let valid = ["{\"v\":1,\"id\":\"%\",\"cmd\":\"pause\"}", "{\"v\":1,\"id\":\"%\",\"cmd\":\"resume\"}",
                     "{\"v\":1,\"id\":\"%\",\"cmd\":\"status\"}", "{\"v\":1,\"id\":\"%\",\"cmd\":\"hello\"}",
                     "{\"v\":1,\"id\":\"%\",\"cmd\":\"start\",\"args\":{\"region\":\"99999999999x1+0+0\"}}"]
        let malformed = ["{\"v\":1,\"id\":\"%\",\"cmd\":", "{\"id\":\"%\",\"cmd\":\"pause\"}", "{\"v\":\"x\",\"id\":\"%\"}",
                         "not json \"id\": \"%\"", "{\"v\":1,\"id\":\"%\",\"cmd\":\"nope\"}", "[1,2,3]", "{\"v\":1,\"id\":\"%\",\"cmd\":42}"]
        // A fixed storm (12 connections of 200 lines; about 640 of them pause or resume), not a
        // fixed time: a slow machine sends the same storm, only later. The bound is generous.
        let deadline = Date().addingTimeInterval(240)
        var sent = 0, answered = 0, echoed = 0, expectedEchoes = 0, pauses = 0
        for _ in 0..<12 {
            guard Date() < deadline else { return XCTFail("the storm was not answered within 240 s: \(sent) lines sent") }
            let socket = try RawControlSocket(path: service.socketPath)
            for _ in 0..<200 {
                let id = "r\(sent)"
                let isMalformed = Int.random(in: 0..<3, using: &rng) == 0
                var line = (isMalformed ? malformed : valid).randomElement(using: &rng)!.replacingOccurrences(of: "%", with: id)
                if !isMalformed, line.contains("\"pause\"") || line.contains("\"resume\"") { pauses += 1 }
                if isMalformed && Int.random(in: 0..<10, using: &rng) == 0 {
                    line = String((0..<Int.random(in: 1..<300, using: &rng)).map { _ in Character(UnicodeScalar(UInt8.random(in: 32...126, using: &rng))) })
                        .replacingOccurrences(of: "\n", with: " ")
                }
                guard socket.write(Array((line + "\n").utf8)) else { return XCTFail("the service closed a connection after \(sent) lines") }
                sent += 1
                let carriesID = line.contains("\"id\":\"\(id)\"") || line.contains("\"id\": \"\(id)\"")
                if isMalformed && carriesID { expectedEchoes += 1 }
                guard let reply = socket.readLine(timeout: 10) else { return XCTFail("no reply to line \(sent): \(line)") }
                answered += 1
                if isMalformed && carriesID && reply.contains("\"id\":\"\(id)\"") { echoed += 1 }
            }
        }
        XCTAssertEqual(answered, sent, "every line is answered")
        XCTAssertEqual(echoed, expectedEchoes, "a malformed line's reply echoes its id")
        XCTAssertGreaterThan(pauses, 500, "a storm of pauses and resumes was sent")
        XCTAssertEqual(try service.pid(), pid, "the same service answers: it never crashed")
        _ = try? service.ctl(["resume"])
        let stop = try service.ctl(["stop"])
        XCTAssertEqual(stop.exitCode, 0, "\(stop)")
        let probe = try FFprobe.probe(output, countFrames: false)
        XCTAssertEqual(probe.video.count, 1, "the recording survived the storm: \(probe)")
        XCTAssertFalse(service.log.contains("Fatal error"), service.log)
    }

    /// `recordctl service stop` and SIGTERM, 20 times each, on an idle service run in the
    /// foreground (so its exit status is seen): always a clean exit 0, never a signal.
    func testFortyShutdownsAllExitCleanly() throws {
        for i in 0..<40 {
            let daemon = try RunningProcess(service.recorddPath, ["--foreground"], environment: service.environment)
            // Wait for this daemon's hello (not `recordctl status`, which would start another).
            var up = false
            for _ in 0..<200 where !up {
                if let s = try? RawControlSocket(path: service.socketPath), s.write(Array("{\"v\":1,\"cmd\":\"hello\"}\n".utf8)),
                   let reply = s.readLine(timeout: 5), reply.contains("\"pid\":\(daemon.pid)") {
                    up = true
                } else {
                    usleep(25_000)
                }
            }
            XCTAssertTrue(up, "service \(i) came up")
            if i % 2 == 0 {
                _ = try service.ctl(["service", "stop"], timeout: 20)
            } else {
                kill(daemon.pid, SIGTERM)
                if i % 4 == 1 { kill(daemon.pid, SIGTERM); kill(daemon.pid, SIGINT) }  // several at once
            }
            let r = daemon.wait(timeout: 20)
            XCTAssertNil(r.signal, "shutdown \(i) ended by a signal: \(r)")
            XCTAssertEqual(r.exitCode, 0, "shutdown \(i): \(r)")
            if r.exitCode != 0 { break }
        }
    }

    /// kill -9 in the first second after `start` returned (once, 2 of 20 kills at 0.8-1 s
    /// lost everything silently): every kill leaves either a recovered file that plays, or, when no
    /// media had reached the file yet (the first fragment is written after a second of media),
    /// nothing at the destination and a `status.recovered` entry that says so. Never a silent loss.
    func testKillNineInTheFirstSecondKeepsTheRecordingOrSaysSo() throws {
        var kept: [Double] = []
        for (i, wait) in [0.1, 0.3, 0.5, 0.65, 0.8, 0.9, 1.0].enumerated() {
            let output = path("first-second-\(i).mp4")
            let id = try service.ok(["start", "--region", "320x240+0+0", "--output", output])
                .split(separator: "\n").first.map(String.init) ?? ""
            let pid = try XCTUnwrap(try service.pid())
            Thread.sleep(forTimeInterval: wait)
            kill(pid, SIGKILL)
            for _ in 0..<50 where kill(pid, 0) == 0 { usleep(50_000) }
            let status = try service.status()  // a new service, which recovers
            let entry = ((status["recovered"] as? [[String: Any]]) ?? []).first { $0["id"] as? String == id }
            guard let entry else {
                XCTFail("kill \(i) after \(wait) s: recording \(id) is not in status.recovered (a silent loss): \(status)")
                continue
            }
            if let path = entry["path"] as? String, !path.isEmpty {
                XCTAssertEqual(path, output, "kill \(i) after \(wait) s: recovered at its destination")
                let probe = try FFprobe.probe(output, countFrames: true)
                XCTAssertGreaterThan(probe.video.first?.frameCount ?? 0, 0, "kill \(i) after \(wait) s: the recovered file plays: \(probe)")
                kept.append(wait)
            } else {
                XCTAssertNotNil(entry["nothing"] as? String, "kill \(i) after \(wait) s: status says why nothing was recovered: \(entry)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: output), "kill \(i) after \(wait) s: nothing left at the destination")
            }
        }
        verbose("kills in the first second that kept a file: \(kept)")
    }

    /// A kill -9 at random moments (starting, recording, paused): the next command recovers
    /// the recording into a playable file at its destination, and a recording that had nothing
    /// yet leaves no empty placeholder.
    func testKillNineAtRandomMomentsLeavesARecoveredPlayableFileOrNothing() throws {
        var recovered = 0
        for i in 0..<5 {
            let output = path("killed-\(i).mp4")
            try service.ok(["start", "--region", "320x240+0+0", "--output", output])
            let pid = try XCTUnwrap(try service.pid())
            let wait = [0.3, 1.5, 3.0, 4.0, 5.0][i]
            if i == 3 { Thread.sleep(forTimeInterval: 2); try service.ok(["pause"]); Thread.sleep(forTimeInterval: wait - 2) } else {
                Thread.sleep(forTimeInterval: wait)
            }
            kill(pid, SIGKILL)
            for _ in 0..<50 where kill(pid, 0) == 0 { usleep(50_000) }
            let status = try service.status()  // starts a new service, which recovers
            let list = (status["recovered"] as? [[String: Any]]) ?? []
            let size = (try? FileManager.default.attributesOfItem(atPath: output))?[.size] as? Int ?? -1
            if list.contains(where: { $0["path"] as? String == output }) {
                recovered += 1
                let probe = try FFprobe.probe(output, countFrames: false)
                XCTAssertEqual(probe.video.count, 1, "kill \(i) after \(wait) s: recovered file plays: \(probe)")
            } else {
                XCTAssertNotEqual(size, 0, "kill \(i) after \(wait) s: an empty placeholder was left at \(output)")
                XCTAssertLessThan(wait, 2.5, "kill \(i) after \(wait) s recorded for long enough, yet nothing was recovered: \(status)")
            }
        }
        XCTAssertGreaterThanOrEqual(recovered, 3, "recordings killed after 2.5 s or more are recovered")

        // During stop's finalization: the file is at its destination and plays, either finished
        // by that stop or recovered by the next service.
        let output = path("killed-in-stop.mp4")
        try service.ok(["start", "--region", "320x240+0+0", "--output", output])
        Thread.sleep(forTimeInterval: 4)
        let pid = try XCTUnwrap(try service.pid())
        let stopping = try RunningProcess(service.recordctl, ["stop"], environment: service.environment)
        usleep(150_000)
        kill(pid, SIGKILL)
        _ = stopping.wait(timeout: 20)
        _ = try service.status()
        XCTAssertEqual(try FFprobe.probe(output, countFrames: false).video.count, 1, "killed during stop: the file plays")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: service.sessionsDir), [], "nothing left to recover")
    }

    /// The destination's disk is full at stop: stop fails (exit 70), says where the recording
    /// is kept, leaves no empty file at the destination; once there is room, the next service
    /// delivers it. A tmpfs of 64 KiB mounted for the test (root only).
    func testFullDiskAtStopKeepsTheRecordingAndSaysWhere() throws {
        let mountPoint = try mountTinyFilesystem(kilobytes: 64)
        defer { unmount(mountPoint) }
        let output = mountPoint + "/full.mp4"
        try service.ok(["start", "--region", "640x480+0+0", "--output", output])
        Thread.sleep(forTimeInterval: 4)
        let stop = try service.ctl(["stop"])
        XCTAssertEqual(stop.exitCode, 70, "stop must not report success: \(stop)")
        XCTAssertTrue(stop.stderr.contains("kept in"), "stop says where the recording is: \(stop)")
        let keptDir = try XCTUnwrap(stop.stderr.components(separatedBy: "kept in ").last?.components(separatedBy: "\n").first?
            .trimmingCharacters(in: .whitespaces))
        let kept = (FileManager.default.enumerator(atPath: keptDir)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".mp4") }.map { keptDir + "/" + $0 }
        XCTAssertEqual(kept.count, 1, "the recording is kept in \(keptDir): \(kept)")
        if let file = kept.first { XCTAssertEqual(try FFprobe.probe(file, countFrames: false).video.count, 1, "the kept recording plays") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "no placeholder left at the destination")
        let status = try service.status()
        let errors = (status["last"] as? [String: Any])?["errors"] as? [String] ?? []
        XCTAssertTrue(errors.contains { $0.contains("kept in") }, "status shows where it is kept: \(status)")

        // Room again: the next service start delivers it.
        XCTAssertEqual(ProcessRunnerShell.run("mount -o remount,size=20m \(mountPoint)"), 0)
        service.shutdown()
        try FileManager.default.createDirectory(atPath: service.runtimeDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let after = try service.status()
        let recovered = (after["recovered"] as? [[String: Any]]) ?? []
        XCTAssertTrue(recovered.contains { $0["path"] as? String == output }, "delivered at the next start: \(after)")
        XCTAssertEqual(try FFprobe.probe(output, countFrames: false).video.count, 1)
    }

    /// The session directory's disk is full while recording: the recording fails with a message
    /// that says so, stop does not report success, and the service goes on answering.
    func testFullDiskWhileRecordingFailsLoudlyAndTheServiceStaysUsable() throws {
        let mountPoint = try mountTinyFilesystem(kilobytes: 2048)
        defer { unmount(mountPoint) }
        service.shutdown()
        let env = service.environment.merging(["XDG_STATE_HOME": mountPoint + "/state"]) { _, new in new }
        try FileManager.default.createDirectory(atPath: service.runtimeDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let start = try ProcessRunner.run(service.recordctl, ["start", "--region", "640x480+0+0", "--output", path("never.mp4")],
                                          environment: env, timeout: 30)
        // Then the disk fills up (another program, say).
        _ = ProcessRunnerShell.run("dd if=/dev/zero of=\(mountPoint)/filler bs=4k 2>/dev/null")
        Thread.sleep(forTimeInterval: 4)
        let stop = try ProcessRunner.run(service.recordctl, ["stop"], environment: env, timeout: 30)
        XCTAssertTrue(start.exitCode != 0 || stop.exitCode != 0, "a recording that could not be written is not a success: \(start) \(stop)")
        XCTAssertTrue((start.stderr + stop.stderr).contains("No space left on device") || (start.stderr + stop.stderr).contains("kept in"),
                      "the message says what happened: \(start) \(stop)")
        XCTAssertNotEqual((try? FileManager.default.attributesOfItem(atPath: path("never.mp4")))?[.size] as? Int, 0,
                          "no empty placeholder left at the destination")
        let status = try ProcessRunner.run(service.recordctl, ["status"], environment: env, timeout: 30)
        XCTAssertEqual(status.exitCode, 0, "the service still answers: \(status)")
        _ = try? ProcessRunner.run(service.recordctl, ["service", "stop"], environment: env, timeout: 20)
    }

    /// A malformed RTMP URL, a key from a file and from the environment: no output (errors,
    /// status, status --json, events, the log, the command line of `recordctl record`) ever
    /// shows the key.
    func testNoStreamKeyInAnyOutput() throws {
        let rtmp = try XCTUnwrap(rig.rtmpURL, "the rig has no RTMP server")
        let secret = "testkey-SECRET\(UInt32.random(in: 1000...9999))"
        var outputs: [String] = []
        let events = try service.watchEvents()
        // Malformed (a trailing slash after the key): refused, key not shown.
        let bad = try service.ctl(["start", "--region", "320x240+0+0", "--output", path("a.mp4"), "--rtmp", "\(rtmp)/\(secret)/"])
        outputs += [bad.stdout, bad.stderr]
        if bad.exitCode == 0 {
            // The file records; the endpoint is refused by its handler, and stop says so.
            Thread.sleep(forTimeInterval: 1)
            for args in [["status"], ["status", "--json"], ["stop"]] { let r = try service.ctl(args); outputs += [r.stdout, r.stderr] }
            XCTAssertTrue(bad.stderr.contains("****"), "the refused endpoint is a warning with the URL masked: \(bad)")
        }
        // The key from a file (mode 0600): a URL without a key on the command line.
        let keyFile = path("key.txt")
        try (secret + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o600)
        try service.ok(["start", "--region", "320x240+0+0", "--output", path("b.mp4"), "--rtmp", rtmp, "--rtmp-key-file", keyFile])
        Thread.sleep(forTimeInterval: 3)
        for args in [["status"], ["status", "--json"]] { let r = try service.ctl(args); outputs += [r.stdout, r.stderr] }
        let stop = try service.ctl(["stop"])
        outputs += [stop.stdout, stop.stderr]
        XCTAssertEqual(stop.exitCode, 0, "\(stop)")
        XCTAssertTrue(stop.stdout.contains("/live/****"), "the endpoint is listed, masked: \(stop)")
        // The key from the environment, in the foreground: not on the command line.
        let env = rig.environment.merging(["RECORDKIT_RTMP_KEY": secret]) { _, new in new }
        let record = try RunningProcess(service.recordctl, ["record", "--region", "320x240+0+0", "--output", path("c.mp4"),
                                                            "--rtmp", rtmp, "--duration", "3"], environment: env)
        usleep(1_000_000)
        let cmdline = (try? String(contentsOfFile: "/proc/\(record.pid)/cmdline", encoding: .utf8)) ?? ""
        let r = record.wait(timeout: 30)
        outputs += [r.stdout, r.stderr, cmdline]
        XCTAssertEqual(r.exitCode, 0, "\(r)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("c.mp4")))
        outputs += events.finish().map { "\($0)" }
        outputs.append(service.log)
        for (i, text) in outputs.enumerated() {
            XCTAssertFalse(text.contains(secret), "output \(i) shows the stream key: \(text)")
        }
    }

    /// An RTMP outage of 5 s: the endpoint's reconnection shows as events, it goes live again,
    /// and the file beside it lost no frame to it.
    func testRTMPOutageIsEventsAndNeverTakesFramesFromTheFile() throws {
        let rtmp = try XCTUnwrap(rig.rtmpURL, "the rig has no RTMP server")
        let output = path("outage.mp4")
        let events = try service.watchEvents()
        try service.ok(["start", "--frame-rate-mode", "constant", "--region", "320x240+0+0", "--output", output, "--rtmp", "\(rtmp)/testkey-outage"])
        Thread.sleep(forTimeInterval: 3)
        var restarted = false
        try rigCommand("nginx-stop")
        addTeardownBlock { [weak self] in if !restarted { try? self?.rigCommand("nginx-start") } }
        Thread.sleep(forTimeInterval: 5)
        try rigCommand("nginx-start")
        restarted = true
        // Live again: the status counts the connection made again (the metrics' recordkit_rtmp_reconnects_total),
        // and the going-live is an event after the outage's.
        var rtmpInfo: [String: String] = [:]
        let liveAgainBy = Date(timeIntervalSinceNow: 40)
        while Date() < liveAgainBy, rtmpInfo["reconnections"] != "1" || rtmpInfo["state"] != "live" {
            Thread.sleep(forTimeInterval: 0.5)
            let recorder = (try service.status()["recording"] as? [String: Any])?["recorder"] as? [String: Any]
            rtmpInfo = (recorder?["handlers"] as? [[String: Any]] ?? []).first { ($0["name"] as? String ?? "").hasPrefix("rtmp") }?["serviceInfo"]
                as? [String: String] ?? [:]
        }
        XCTAssertEqual(rtmpInfo["reconnections"], "1", "one reconnection in the status: \(rtmpInfo)")
        XCTAssertEqual(rtmpInfo["state"], "live", "live again: \(rtmpInfo)")
        Thread.sleep(forTimeInterval: 2)
        let stop = try service.ctl(["stop"])
        XCTAssertEqual(stop.exitCode, 0, "\(stop)")
        let all = events.finish()
        let reasons = all.filter { $0["kind"] as? String == "handler" }.compactMap { $0["reason"] as? String }
        XCTAssertTrue(reasons.contains { $0.contains("reconnecting (attempt 1)") }, "the outage is an event: \(reasons)")
        let outage = reasons.firstIndex { $0.contains("reconnecting (attempt 1)") } ?? reasons.endIndex
        XCTAssertTrue(reasons[outage...].contains { $0.hasSuffix(": live") }, "going live again is an event after the outage's: \(reasons)")
        let recorded = (all.first { $0["state"] as? String == "finishing" }?["time"] as? NSNumber)?.doubleValue ?? 0
        let probe = try FFprobe.probe(output)
        let frames = probe.video.first?.frameCount ?? 0
        XCTAssertGreaterThan(recorded, 9)
        XCTAssertGreaterThanOrEqual(Double(frames), recorded * 30 - 3, "every frame is in the file (\(frames) for \(recorded) s)")
    }

    /// The runtime directory is trusted only when safe: group/world-accessible, a symlink, or
    /// another user's directory (with a socket in it that would swallow a stream key) is refused
    /// with exit 77 before anything is sent.
    func testUnsafeRuntimeDirectoriesAreRefusedBeforeAnythingIsSent() throws {
        let base = "/tmp/rk-e2e-unsafe-\(UUID().uuidString.prefix(6))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/open/recordkit", withIntermediateDirectories: true)
        chmod(base + "/open/recordkit", 0o777)
        try FileManager.default.createDirectory(atPath: base + "/target", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/link", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: base + "/link/recordkit", withDestinationPath: base + "/target")
        try FileManager.default.createDirectory(atPath: base + "/other/recordkit", withIntermediateDirectories: true)
        chmod(base + "/other/recordkit", 0o700)
        chown(base + "/other/recordkit", 65534, 65534)
        let planted = try SilentListener(path: base + "/open/recordkit/recordd.sock")
        defer { planted.close() }
        for dir in ["open", "link", "other"] {
            let env = service.environment.merging(["XDG_RUNTIME_DIR": base + "/" + dir]) { _, new in new }
            let r = try ProcessRunner.run(service.recordctl, ["start", "--region", "320x240+0+0", "--rtmp", "rtmp://127.0.0.1/live/testkey-x"],
                                          environment: env, timeout: 30)
            XCTAssertEqual(r.exitCode, 77, "\(dir): \(r)")
            XCTAssertTrue(r.stderr.contains("refusing"), "\(dir): the message says why: \(r)")
        }
        XCTAssertEqual(planted.bytesReceived, 0, "nothing was sent to the planted socket")
    }

    // MARK: Helpers

    private func rigCommand(_ command: String) throws {
        let script = packageRoot.path + "/scripts/rig.sh"
        let r = try ProcessRunner.run("bash", [script, command], environment: rig.environment, timeout: 60)
        guard r.exitCode == 0 else { throw RigError(description: "rig.sh \(command) failed: \(r)") }
    }

    /// A tmpfs of `kilobytes` mounted for this test (needs root, as the CI runs the tests).
    private func mountTinyFilesystem(kilobytes: Int) throws -> String {
        guard getuid() == 0 else { throw XCTSkip("mounting a small tmpfs needs root (CI runs as root)") }
        let mountPoint = path("tiny-\(kilobytes)k")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard ProcessRunnerShell.run("mount -t tmpfs -o size=\(kilobytes)k tmpfs \(mountPoint)") == 0 else {
            throw RigError(description: "cannot mount a tmpfs on \(mountPoint)")
        }
        addTeardownBlock { _ = ProcessRunnerShell.run("umount -l \(mountPoint)") }
        return mountPoint
    }

    private func unmount(_ mountPoint: String) { _ = ProcessRunnerShell.run("umount -l \(mountPoint)") }
}

/// Runs a shell command line; its exit status.
enum ProcessRunnerShell {
    static func run(_ command: String) -> Int32 {
        (try? ProcessRunner.run("sh", ["-c", command], timeout: 30))?.exitCode ?? -1
    }
}
