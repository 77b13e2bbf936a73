import Foundation
import XCTest

/// Tone-playing PulseAudio clients and `recordctl audio-sources` polling, shared by the
/// one-application audio tests on PulseAudio (AppAudioTests) and on PipeWire (PipeWireAudioTests).
extension EndToEndTestCase {
    /// An ffmpeg client playing `frequency` Hz into `sink` under application name `name`, on the
    /// audio server `environment` names (PULSE_SERVER). Terminated at teardown.
    func tonePlayer(_ name: String, _ frequency: Double, sink: String = "app_sink",
                    environment: [String: String]) throws -> RunningProcess {
        let p = try RunningProcess("ffmpeg", [
            "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "sine=frequency=\(Int(frequency)):sample_rate=48000",
            "-ac", "2", "-f", "pulse", "-buffer_duration", "40", "-name", name, "-device", sink, "tone",
        ], environment: environment)
        addTeardownBlock { p.terminate(grace: 2); _ = p.wait(timeout: 5, grace: 1) }
        return p
    }

    /// `recordctl audio-sources`' lines for application `name`, polled (up to ~5 s plus the runs)
    /// until at least `count` of its streams are listed. Returns the last full listing; fails
    /// the test if the streams never showed up.
    @discardableResult
    func waitUntilListed(_ name: String, count: Int = 1, recordctl: Recordctl,
                         environment: [String: String]) throws -> String {
        var last = ""
        for _ in 0..<50 {
            let r = try ProcessRunner.run(recordctl.path, ["audio-sources"], environment: environment, timeout: 20)
            last = r.stdout
            let lines = r.stdout.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name + "\t") }
            if lines.count >= count { return r.stdout }
            usleep(100_000)
        }
        XCTFail("\(count) stream(s) of \(name) never showed up in `recordctl audio-sources`: \(last)")
        return last
    }

    /// Checks that the only audio track of `path` holds application `tone` alone (louder than
    /// -40 dBFS and 20 dB above every other of `candidates`) both before (0.5-2.5 s) and after
    /// its player restarted, 3 s after the file appeared (the last 2 s but the final half second
    /// of a 10 s recording, well after the restart).
    func assertOnlyTone(_ tone: Double, in path: String, among candidates: [Double], label: String,
                        file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = try FFprobe.probe(path)
        XCTAssertEqual(probe.audio.count, 1, "only the app track: \(probe)", file: file, line: line)
        let end = probe.audio.first?.duration ?? 10
        let before = try ToneAnalyzer.analyze(path, audioStream: 0, candidates: candidates, start: 0.5, duration: 2)
        let after = try ToneAnalyzer.analyze(path, audioStream: 0, candidates: candidates, start: max(5.5, end - 2.5), duration: 2)
        verbose("\(label): before restart: \(before); after: \(after)")
        for (report, when) in [(before, "before the restart"), (after, "after the restart")] {
            XCTAssertGreaterThan(report.rmsDBFS, -40, "\(label), \(when): the application's sound is there: \(report)", file: file, line: line)
            XCTAssertEqual(report.dominant, tone, "\(label), \(when): only the application's tone: \(report)", file: file, line: line)
            XCTAssertGreaterThan(report.dominanceDB, 20, "\(label), \(when): nothing of the others: \(report)", file: file, line: line)
        }
    }
}
