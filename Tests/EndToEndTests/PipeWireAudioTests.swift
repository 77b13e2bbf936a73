import Foundation
import XCTest

/// One application's audio on PipeWire: the same checks as AppAudioTests, against a
/// private PipeWire + WirePlumber + pipewire-pulse (scripts/pipewire-server.sh) instead of the rig's
/// PulseAudio. recordctl finds the server through PULSE_SERVER, as any PulseAudio client does.
///
/// Skipped (XCTSkip) only when the PipeWire programs are not installed; scripts/install-deps.sh
/// installs them, so in CI these tests run.
final class PipeWireAudioTests: EndToEndTestCase {
    let toneA = 700.0
    let toneB = 1700.0
    /// The rig's environment with PULSE_SERVER pointing at PipeWire.
    private var pwEnv: [String: String] = [:]

    override func setUpWithError() throws {
        try super.setUpWithError()
        let missing = PipeWireServer.missingBinaries(environment: rig.environment)
        if !missing.isEmpty {
            throw XCTSkip("PipeWire not installed (\(missing.joined(separator: ", ")) missing): run scripts/install-deps.sh")
        }
        let dir = (rig.rigDir as NSString).appendingPathComponent("pw-e2e")
        let started = try PipeWireServer.start(in: dir, environment: rig.environment)
        let base = rig.environment
        addTeardownBlock { started.stop(environment: base) }
        pwEnv = started.clientEnvironment(rig.environment)
        let info = try ProcessRunner.run("pactl", ["info"], environment: pwEnv, timeout: 10)
        XCTAssertTrue(info.stdout.contains("Server Name: PulseAudio (on PipeWire "), "not PipeWire: \(info)")
        verbose(info.stdout.split(separator: "\n").first { $0.hasPrefix("Server Name") }.map(String.init) ?? "")
    }

    /// `recordctl audio-sources` lists both applications with their pid and sink input, and the
    /// PipeWire server's sinks and sources.
    func testAudioSourcesListsTwoApplicationsOnPipeWire() throws {
        let rc = try Recordctl(rig)
        let nameA = "rk-pw-a-\(getpid())", nameB = "rk-pw-b-\(getpid())"
        let a = try tonePlayer(nameA, toneA, environment: pwEnv)
        let b = try tonePlayer(nameB, toneB, environment: pwEnv)
        try waitUntilListed(nameA, recordctl: rc, environment: pwEnv)
        let listing = try waitUntilListed(nameB, recordctl: rc, environment: pwEnv)
        verbose("audio-sources on PipeWire:\n\(listing)")
        let lines = listing.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for (name, player) in [(nameA, a), (nameB, b)] {
            let line = lines.first { $0.hasPrefix(name + "\t") } ?? ""
            XCTAssertTrue(line.contains("pid \(player.pid)\t"), "\(name)'s pid (\(player.pid)) is listed: \(listing)")
            XCTAssertNotNil(line.range(of: "sink-input [0-9]+", options: .regularExpression), "\(name)'s sink input: \(listing)")
            XCTAssertTrue(line.hasSuffix("sink app_sink"), "\(name)'s sink: \(listing)")
        }
        XCTAssertTrue(lines.contains("app_sink") && lines.contains("mic_sink"), "the sinks: \(listing)")
        XCTAssertTrue(lines.contains("app_sink.monitor") && lines.contains("mic_sink.monitor"), "the sources: \(listing)")
    }

    /// `--app-audio-from NAME` records only that application's tone; when it restarts its stream
    /// mid-recording (a new sink input), its sound comes back. Also by pid (PipeWire sets
    /// application.process.id from the client's credentials).
    func testOneApplicationsToneOnlyAndItComesBackAfterARestartOnPipeWire() throws {
        let rc = try Recordctl(rig)
        let nameA = "rk-pw-a-\(getpid())", nameB = "rk-pw-b-\(getpid())"
        var a = try tonePlayer(nameA, toneA, environment: pwEnv)
        _ = try tonePlayer(nameB, toneB, environment: pwEnv)
        try waitUntilListed(nameA, recordctl: rc, environment: pwEnv)
        try waitUntilListed(nameB, recordctl: rc, environment: pwEnv)

        let out = path("pw-app-audio.mkv")
        let recording = try rc.start(["--app-audio-from", nameA, "--no-mic", "--duration", "10", "--format", "mkv", "--output", out],
                                     environment: pwEnv)
        XCTAssertTrue(waitForRecordingFile(out), "the recording began")
        Thread.sleep(forTimeInterval: 3)
        a.terminate(grace: 2)
        _ = a.wait(timeout: 5, grace: 1)
        Thread.sleep(forTimeInterval: 0.5)
        a = try tonePlayer(nameA, toneA, environment: pwEnv)
        let result = recording.wait(timeout: 60)
        XCTAssertEqual(result.exitCode, 0, "\(result)")

        try assertOnlyTone(toneA, in: out, among: [toneA, toneB], label: "PipeWire")

        // By pid: the restarted player's process id selects the same application.
        let byPid = path("pw-app-audio-pid.mkv")
        let r = try rc.record(["--app-audio-from", "\(a.pid)", "--no-mic", "--duration", "3", "--format", "mkv", "--output", byPid],
                              environment: pwEnv, timeout: 60)
        XCTAssertEqual(r.exitCode, 0, "\(r)")
        let pidReport = try ToneAnalyzer.analyze(byPid, audioStream: 0, candidates: [toneA, toneB], start: 0.5, duration: 2)
        verbose("PipeWire, by pid \(a.pid): \(pidReport)")
        XCTAssertGreaterThan(pidReport.rmsDBFS, -40, "by pid: the application's sound is there: \(pidReport)")
        XCTAssertEqual(pidReport.dominant, toneA, "by pid: application A's tone: \(pidReport)")
        XCTAssertGreaterThan(pidReport.dominanceDB, 20, "by pid: nothing of the other application: \(pidReport)")
    }

    /// An application that plays nothing gives a silent track of the recording's length, not the
    /// sink's other sound.
    func testAnApplicationThatPlaysNothingRecordsSilenceOnPipeWire() throws {
        let rc = try Recordctl(rig)
        _ = try tonePlayer("rk-pw-other-\(getpid())", toneB, environment: pwEnv)
        try waitUntilListed("rk-pw-other-\(getpid())", recordctl: rc, environment: pwEnv)
        let out = path("pw-silent-app.mkv")
        let r = try rc.record(["--app-audio-from", "rk-nobody-plays-this", "--no-mic", "--duration", "3", "--format", "mkv", "--output", out],
                              environment: pwEnv, timeout: 60)
        XCTAssertEqual(r.exitCode, 0, "\(r)")
        let probe = try FFprobe.probe(out)
        let track = try XCTUnwrap(probe.audio.first, "an app track even without sound: \(probe)")
        XCTAssertEqual(track.duration ?? 0, 3, accuracy: 0.2, "the silent track lasts the recording: \(probe)")
        let report = try ToneAnalyzer.analyze(out, audioStream: 0, candidates: [toneB], start: 0.5, duration: 2)
        XCTAssertLessThan(report.rmsDBFS, -60, "silence, not the sink's other sound: \(report)")
    }
}
