import Foundation
import XCTest

/// One application's audio: two applications with different tones play into the same
/// sink; `--app-audio-from` records only one of them, and when it restarts its stream
/// mid-recording its sound comes back. `recordctl audio-sources` lists both.
final class AppAudioTests: EndToEndTestCase {
    let toneA = 600.0
    let toneB = 1500.0

    private func player(_ name: String, _ frequency: Double) throws -> RunningProcess {
        try tonePlayer(name, frequency, environment: rig.environment)
    }

    private func waitUntilPlaying(_ name: String, rc: Recordctl) throws -> String {
        try waitUntilListed(name, recordctl: rc, environment: rig.environment)
    }

    func testOneApplicationsToneOnlyAndItComesBackAfterARestart() throws {
        let rc = try Recordctl(rig)
        let nameA = "rk-tone-a-\(getpid())", nameB = "rk-tone-b-\(getpid())"
        var a = try player(nameA, toneA)
        _ = try player(nameB, toneB)
        _ = try waitUntilPlaying(nameA, rc: rc)
        let listing = try waitUntilPlaying(nameB, rc: rc)
        XCTAssertTrue(listing.contains("sink app_sink"), "the sink input's sink is listed: \(listing)")
        XCTAssertTrue(listing.contains("sinks:") && listing.contains("sources:"), "\(listing)")

        let out = path("app-audio.mkv")
        let recording = try rc.start(["--app-audio-from", nameA, "--no-mic", "--duration", "10", "--format", "mkv", "--output", out])
        XCTAssertTrue(waitForRecordingFile(out), "the recording began")
        Thread.sleep(forTimeInterval: 3)
        // The application restarts its stream: a new sink input of the same application.
        a.terminate(grace: 2)
        _ = a.wait(timeout: 5, grace: 1)
        Thread.sleep(forTimeInterval: 0.5)
        a = try player(nameA, toneA)
        let result = recording.wait(timeout: 60)
        XCTAssertEqual(result.exitCode, 0, "\(result)")

        // The other application and the sink's own rig tone must both be absent.
        try assertOnlyTone(toneA, in: out, among: [toneA, toneB, rig.appToneHz], label: "PulseAudio")
    }

    /// An application that plays two streams at once (two clients under one application name,
    /// as a browser with two tabs) is recorded whole: both tones, at their own levels.
    func testAnApplicationsTwoStreamsAreBothRecorded() throws {
        let rc = try Recordctl(rig)
        let name = "rk-tone-two-\(getpid())"
        _ = try player(name, toneA)
        _ = try player(name, toneB)
        var listing = ""
        for _ in 0..<50 {
            listing = try ProcessRunner.run(rc.path, ["audio-sources"], environment: rig.environment, timeout: 20).stdout
            if listing.split(separator: "\n").filter({ $0.trimmingCharacters(in: .whitespaces).hasPrefix(name + "\t") }).count >= 2 { break }
            usleep(100_000)
        }
        let out = path("two-streams.mkv")
        let r = try rc.record(["--app-audio-from", name, "--no-mic", "--duration", "4", "--format", "mkv", "--output", out], timeout: 60)
        XCTAssertEqual(r.exitCode, 0, "\(r)")
        let report = try ToneAnalyzer.analyze(out, audioStream: 0, candidates: [toneA, toneB, rig.appToneHz], start: 0.5, duration: 3)
        verbose("two streams: \(report)")
        let a = report.power[toneA] ?? 0, b = report.power[toneB] ?? 0, sink = max(report.power[rig.appToneHz] ?? 0, 1e-12)
        XCTAssertGreaterThan(10 * log10(a / sink), 20, "the first stream is in the track, the sink's other sound is not: \(report) (\(listing))")
        XCTAssertGreaterThan(10 * log10(b / sink), 20, "the second stream is in the track too: \(report) (\(listing))")
        XCTAssertLessThan(abs(10 * log10(a / max(b, 1e-12))), 6, "both at their level, summed: \(report)")
    }

    func testAnApplicationThatPlaysNothingRecordsSilence() throws {
        let rc = try Recordctl(rig)
        let out = path("silent-app.mkv")
        let r = try rc.record(["--app-audio-from", "rk-nobody-plays-this", "--no-mic", "--duration", "3", "--format", "mkv", "--output", out],
                              timeout: 60)
        XCTAssertEqual(r.exitCode, 0, "\(r)")
        let probe = try FFprobe.probe(out)
        let track = try XCTUnwrap(probe.audio.first, "an app track even without sound: \(probe)")
        XCTAssertEqual(track.duration ?? 0, 3, accuracy: 0.2, "the silent track lasts the recording: \(probe)")
        let report = try ToneAnalyzer.analyze(out, audioStream: 0, candidates: [rig.appToneHz], start: 0.5, duration: 2)
        XCTAssertLessThan(report.rmsDBFS, -60, "silence, not the sink's other sound: \(report)")
    }
}
