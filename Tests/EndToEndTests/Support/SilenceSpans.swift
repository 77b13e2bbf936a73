import Foundation
import XCTest

/// Where an audio track is silent: the decoded track cut into 10 ms hops, each one silent when
/// its RMS is below -60 dBFS (the rig's tones are about -21 dBFS; an encoded digital silence
/// decodes to far below -90 dBFS).
struct SilenceSpans {
    /// Seconds per hop.
    static let hop = 0.01
    /// RMS of each hop (values in -1...1), from the track's start.
    let rms: [Double]

    /// Decodes audio stream `audioStream` (index among audio streams) of `path`.
    init(_ path: String, audioStream: Int) throws {
        let samples = try ToneAnalyzer.samples(path, audioStream: audioStream).map { Double($0) / 32768 }
        let n = Int(48_000 * Self.hop)
        rms = stride(from: 0, to: samples.count - n + 1, by: n).map { i in
            (samples[i..<(i + n)].reduce(0) { $0 + $1 * $1 } / Double(n)).squareRoot()
        }
    }

    /// The track's decoded length in seconds (whole hops).
    var seconds: Double { Double(rms.count) * Self.hop }

    /// The silent stretches, as (start, end) seconds, merged across single loud hops never:
    /// every hop in a stretch is silent.
    var silent: [(start: Double, end: Double)] {
        var result: [(Double, Double)] = []
        var start: Int?
        for (i, v) in rms.enumerated() {
            if v < 0.001 { if start == nil { start = i } } else if let s = start { result.append((Double(s) * Self.hop, Double(i) * Self.hop)); start = nil }
        }
        if let s = start { result.append((Double(s) * Self.hop, Double(rms.count) * Self.hop)) }
        return result
    }

    /// The share (0...1) of the hops within `from..<to` seconds that carry sound. The rig's tone
    /// players are ordinary PulseAudio clients: on a loaded machine they underrun now and then,
    /// and the source itself is silent for a few tens of milliseconds.
    func loudShare(from: Double, to: Double) -> Double {
        let a = max(0, Int(from / Self.hop)), b = min(rms.count, Int(to / Self.hop))
        guard a < b else { return 0 }
        return Double(rms[a..<b].filter { $0 >= 0.001 }.count) / Double(b - a)
    }
}

extension EndToEndTestCase {
    /// Checks a recording whose audio tracks were switched off and on (`recordctl mic`,
    /// obs-websocket SetInputMute): each track is silent exactly over its `(off, on)` windows
    /// (within 100 ms; `on` nil: to the end) and carries its rig tone everywhere else; every
    /// track spans the video; the packets of each track follow each other with no gap or jump.
    func assertSwitchedSilence(_ path: String, mic: [(Double, Double?)] = [], app: [(Double, Double?)] = [],
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = try FFprobe.probe(path)
        guard let (appStream, micStream) = probe.appAndMicAudio, let video = probe.video.first else {
            return XCTFail("want video, app and mic tracks: \(probe)", file: file, line: line)
        }
        let duration = video.duration ?? 0
        let candidates = [rig.appToneHz, rig.micToneHz]
        for (stream, windows, tone, label) in [(micStream, mic, rig.micToneHz, "mic"), (appStream, app, rig.appToneHz, "app")] {
            let audioIndex = probe.audio.firstIndex { $0.index == stream.index }!
            let spans = try SilenceSpans(path, audioStream: audioIndex)
            // Silences near the ends (the first and last AAC frame) and the tone players' rare
            // underruns on a loaded machine (tens of ms) are not a switch's.
            let silences = spans.silent.filter { $0.end - $0.start > 0.25 }
            verbose("\(label) silences \(spans.silent), switched \(windows), video \(duration) s")
            XCTAssertEqual(silences.count, windows.count, "\(label): one silent stretch per switch-off: \(spans.silent)", file: file, line: line)
            for (s, w) in zip(silences, windows) {
                XCTAssertEqual(s.start, w.0, accuracy: 0.1, "\(label): the silence starts at the off time", file: file, line: line)
                XCTAssertEqual(s.end, w.1 ?? spans.seconds, accuracy: 0.1, "\(label): the silence ends at the on time", file: file, line: line)
            }
            // The tone between the off windows.
            var edges: [Double] = [0]
            for w in windows { edges += [w.0, w.1 ?? duration] }
            edges.append(duration)
            for k in stride(from: 0, to: edges.count - 1, by: 2) {
                let a = edges[k] + (k == 0 ? 0.2 : 0.1), b = edges[k + 1] - (k + 1 == edges.count - 1 ? 0.2 : 0.1)
                guard b - a > 0.3 else { continue }
                let share = spans.loudShare(from: a, to: b)
                XCTAssertGreaterThan(share, 0.9, "\(label) carries sound over \(a)…\(b): \(share) of it, silences \(spans.silent)", file: file, line: line)
                let report = try ToneAnalyzer.analyze(path, audioStream: audioIndex, candidates: candidates, start: a, duration: b - a)
                XCTAssertEqual(report.dominant, tone, "\(label) tone over \(a)…\(b): \(report)", file: file, line: line)
            }
            let span = try FFprobe.packetSpan(path, streamIndex: stream.index)
            XCTAssertEqual(span.seconds, duration, accuracy: 0.1, "\(label) track spans the recording", file: file, line: line)
            let times = try FFprobe.packetTimes(path, streamIndex: stream.index).sorted()
            let steps = zip(times.dropFirst(), times).map { $0 - $1 }
            XCTAssertLessThanOrEqual(steps.max() ?? 1, 1024.0 / 48_000 + 0.002, "no gap in the \(label) track's packets", file: file, line: line)
            XCTAssertGreaterThanOrEqual(steps.min() ?? 0, 1024.0 / 48_000 - 0.002, "no jump back in the \(label) track's packets", file: file, line: line)
        }
    }
}
