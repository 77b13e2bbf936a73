import Foundation
import Glibc
import XCTest

/// Hardening, the servers: an X server that accepts and never answers, or that stops answering
/// (SIGSTOP) or dies mid-recording; a PulseAudio server that stops answering mid-recording.
/// `recordctl record` and the service fail or degrade within seconds with a message that names
/// the server and a documented exit code; the service stays usable. Bounded in time.
final class HardeningServerFaultTests: EndToEndTestCase {
    /// `DISPLAY` names a socket that accepts and never answers: `record` and the service's
    /// `start` fail within seconds (exit 69, the message says the server does not answer), and
    /// the service records normally right afterwards.
    func testSilentXServerFailsWithinSecondsAndTheServiceStaysUsable() throws {
        let number = 190 + Int.random(in: 0..<9)
        let silent = try SilentListener(path: "\0/tmp/.X11-unix/X\(number)")
        defer { silent.close() }
        let env = rig.environment.merging(["DISPLAY": ":\(number)"]) { _, new in new }
        let recordctl = try rig.recordctlPath()
        let record = try ProcessRunner.run(recordctl, ["record", "--output", path("silent.mp4"), "--duration", "2"], environment: env, timeout: 30)
        XCTAssertEqual(record.exitCode, 69, "\(record)")
        XCTAssertLessThan(record.seconds, 10, "fails within seconds: \(record)")
        XCTAssertTrue(record.stderr.contains("does not answer"), "\(record)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("silent.mp4")) && ((try? FileManager.default.attributesOfItem(atPath: path("silent.mp4")))?[.size] as? Int) == 0,
                       "no empty file left")

        let service = try ServiceHarness(rig: rig, workDir: workDir)
        defer { service.shutdown() }
        let serviceEnv = service.environment.merging(["DISPLAY": ":\(number)"]) { _, new in new }
        let start = try ProcessRunner.run(service.recordctl, ["start", "--output", path("silent-svc.mp4")], environment: serviceEnv, timeout: 30)
        XCTAssertEqual(start.exitCode, 69, "\(start)")
        XCTAssertLessThan(start.seconds, 10, "\(start)")
        XCTAssertTrue(start.stderr.contains("does not answer"), "\(start)")
        // The service is not wedged: a real recording works.
        let output = path("after.mp4")
        try service.ok(["start", "--region", "320x240+0+0", "--output", output])
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(try service.ok(["stop"]), output)
        XCTAssertEqual(try FFprobe.probe(output, countFrames: false).video.count, 1)
    }

    /// The X server stops answering (SIGSTOP) mid-recording: `record` ends within seconds with
    /// exit 70 and a message naming the display, and keeps what was recorded.
    func testXServerThatStopsAnsweringEndsTheRecordingWithItsName() throws {
        let x = try PrivateXServer(rig: rig)
        defer { x.stop() }
        let output = path("stopped-x.mp4")
        let env = rig.environment.merging(["DISPLAY": x.display]) { _, new in new }
        let record = try RunningProcess(try rig.recordctlPath(), ["record", "--output", output, "--no-mic", "--no-app-audio", "--duration", "60"],
                                        environment: env)
        XCTAssertTrue(waitForRecordingFile(output), "the recording began")  // a loaded machine starts late
        Thread.sleep(forTimeInterval: 2)
        kill(x.pid, SIGSTOP)
        let r = record.wait(timeout: 30)
        kill(x.pid, SIGCONT)
        XCTAssertEqual(r.exitCode, 70, "\(r)")
        XCTAssertLessThan(r.seconds, 25, "ended within seconds of the server stopping: \(r)")
        XCTAssertTrue(r.stderr.contains("X server of display \(x.display) stopped answering"), "the message names the server: \(r)")
        XCTAssertEqual(try FFprobe.probe(output, countFrames: false).video.count, 1, "what was recorded is kept and plays")
    }

    /// The X server dies mid-recording, in the foreground and through the service: both say so;
    /// the service answers afterwards and reports the end with its reason.
    func testXServerThatDiesEndsTheRecordingAndTheServiceSaysWhy() throws {
        let x = try PrivateXServer(rig: rig)
        let output = path("dead-x.mp4")
        let env = rig.environment.merging(["DISPLAY": x.display]) { _, new in new }
        let record = try RunningProcess(try rig.recordctlPath(), ["record", "--output", output, "--no-mic", "--no-app-audio", "--duration", "60"],
                                        environment: env)
        XCTAssertTrue(waitForRecordingFile(output), "the recording began")  // a loaded machine starts late
        Thread.sleep(forTimeInterval: 2)
        x.stop()
        let r = record.wait(timeout: 30)
        XCTAssertEqual(r.exitCode, 70, "\(r)")
        XCTAssertTrue(r.stderr.contains("X display \(x.display)"), "the message names the display: \(r)")

        let x2 = try PrivateXServer(rig: rig)
        let service = try ServiceHarness(rig: rig, workDir: workDir)
        defer { service.shutdown(); x2.stop() }
        let serviceEnv = service.environment.merging(["DISPLAY": x2.display]) { _, new in new }
        let events = try service.watchEvents()
        let start = try ProcessRunner.run(service.recordctl, ["start", "--output", path("dead-x-svc.mp4"), "--no-mic", "--no-app-audio"],
                                          environment: serviceEnv, timeout: 30)
        XCTAssertEqual(start.exitCode, 0, "\(start)")
        Thread.sleep(forTimeInterval: 2)
        x2.stop()
        let failed = events.waitFor(timeout: 20) { $0["state"] as? String == "failed" }
        XCTAssertTrue((failed?["reason"] as? String)?.contains("X display \(x2.display)") == true, "\(String(describing: failed))")
        let status = try service.ctl(["status"])
        XCTAssertEqual(status.exitCode, 0, "the service answers: \(status)")
        _ = events.finish()
    }

    /// The PulseAudio server stops answering (SIGSTOP) mid-recording: `record` says so at once,
    /// goes on with silence, and exits 69 (degraded) with the file complete.
    func testPulseAudioServerThatStopsAnsweringDegradesTheRecordingLoudly() throws {
        let pidText = try String(contentsOfFile: rig.rigDir + "/pids/pulse.pid", encoding: .utf8)
        let pulse = try XCTUnwrap(Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
        let output = path("stopped-pulse.mp4")
        let record = try RunningProcess(try rig.recordctlPath(), ["record", "--region", "320x240+0+0", "--output", output, "--duration", "10"],
                                        environment: rig.environment)
        // Once the file is there the recording runs with its audio tracks (a loaded machine takes
        // seconds to connect; stopped before that, the server would be one that never answered).
        XCTAssertTrue(waitForRecordingFile(output), "the recording began")
        Thread.sleep(forTimeInterval: 2)
        kill(pulse, SIGSTOP)
        defer { kill(pulse, SIGCONT) }
        Thread.sleep(forTimeInterval: 6)
        kill(pulse, SIGCONT)
        let r = record.wait(timeout: 40)
        XCTAssertEqual(r.exitCode, 69, "a degraded recording is not a plain success: \(r)")
        XCTAssertTrue(r.stderr.contains("PulseAudio server") && r.stderr.contains("stopped answering"), "the message names the server: \(r)")
        let probe = try FFprobe.probe(output, countFrames: false)
        XCTAssertEqual(probe.video.count, 1)
        XCTAssertEqual(probe.audio.count, 2, "the audio tracks stay (silent while the server was stopped)")
        XCTAssertGreaterThan(probe.formatDuration ?? 0, 9, "the recording ran to its end: \(probe)")
    }

    /// The PulseAudio server dies mid-recording (a server of the test's own, killed -9):
    /// `record` says at once that the audio server is lost, goes on with silence to the end,
    /// and exits 69 (degraded).
    func testPulseAudioServerThatDiesDegradesTheRecordingLoudly() throws {
        let pulse = try PrivatePulseServer(rig: rig, directory: path("pulse"))
        defer { pulse.kill9() }
        let output = path("dead-pulse.mp4")
        let env = rig.environment.merging(["PULSE_SERVER": "unix:" + pulse.socketPath]) { _, new in new }
        let record = try RunningProcess(try rig.recordctlPath(), ["record", "--region", "320x240+0+0", "--output", output, "--duration", "8"],
                                        environment: env)
        XCTAssertTrue(waitForRecordingFile(output), "the recording began")  // a loaded machine starts late
        Thread.sleep(forTimeInterval: 2)
        pulse.kill9()
        let r = record.wait(timeout: 40)
        XCTAssertEqual(r.exitCode, 69, "\(r)")
        XCTAssertTrue(r.stderr.contains("audio server lost") && r.stderr.contains("PulseAudio server"), "the message names the server: \(r)")
        let probe = try FFprobe.probe(output, countFrames: false)
        XCTAssertEqual(probe.video.count, 1)
        XCTAssertGreaterThanOrEqual(probe.audio.count, 1, "the audio tracks stay (silent after the loss): \(probe)")
        XCTAssertGreaterThan(probe.formatDuration ?? 0, 7, "the recording ran to its end: \(probe)")
    }
}
