import Foundation

/// What an audio track carries, relative to a set of candidate tone frequencies.
struct ToneReport: Sendable, CustomStringConvertible {
    var seconds: Double
    /// RMS level in dBFS (a full-scale sine is -3 dBFS; the rig's tones are about -21 dBFS).
    var rmsDBFS: Double
    /// Goertzel power per candidate frequency, the mean over 0.25 s windows (normalised: a
    /// full-scale sine gives about 0.25).
    var power: [Double: Double]
    /// The candidate with the most power.
    var dominant: Double
    /// How far the dominant candidate is above the next one, in dB (large when one tone is alone).
    var dominanceDB: Double

    var description: String {
        let p = power.keys.sorted().map { String(format: "%.0f Hz: %.1f dB", $0, 10 * log10(max(power[$0]!, 1e-20))) }
        return String(format: "%.2f s, RMS %.1f dBFS, dominant %.0f Hz (+%.1f dB); ", seconds, rmsDBFS, dominant, dominanceDB)
            + p.joined(separator: ", ")
    }
}

enum ToneAnalyzer {
    static let sampleRate = 48_000.0

    /// Decodes audio stream `audioStream` (index among audio streams, `0:a:N`) of `path` to s16
    /// mono 48 kHz, from `start` seconds for at most `duration` seconds.
    static func samples(_ path: String, audioStream: Int, start: Double = 0, duration: Double? = nil,
                        timeout: TimeInterval = 60) throws -> [Int16] {
        var args = ["-nostdin", "-v", "error"]
        if start > 0 { args += ["-ss", String(format: "%.3f", start)] }
        args += ["-i", path, "-map", "0:a:\(audioStream)"]
        if let duration { args += ["-t", String(format: "%.3f", duration)] }
        args += ["-ac", "1", "-ar", "48000", "-f", "s16le", "-acodec", "pcm_s16le", "-"]
        let data = try ProcessRunner.output("ffmpeg", args, timeout: timeout)
        return data.withUnsafeBytes { raw in
            Array(raw.bindMemory(to: Int16.self)).map { Int16(littleEndian: $0) }
        }
    }

    /// Normalised Goertzel power of `frequency` over `x` (values in -1...1).
    static func goertzel(_ x: [Double], frequency: Double, sampleRate: Double = sampleRate) -> Double {
        guard !x.isEmpty else { return 0 }
        let w = 2 * Double.pi * frequency / sampleRate
        let coeff = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for v in x {
            let s0 = v + coeff * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coeff * s1 * s2
        let n = Double(x.count)
        return power / (n * n)
    }

    /// Samples per analysis window (0.25 s: 4 Hz bins, far enough from each other for the rig's
    /// tones). One Goertzel over a whole track is not used: the track's drift corrections (a few
    /// milliseconds dropped or added, see AudioTrackAssembler) break the tone's phase, and a
    /// 0.1 Hz wide bin over 10 s then loses most of the tone's power although every window has it.
    static let windowSamples = 12_000

    /// The mean over `windowSamples` windows of each candidate's Goertzel power (the whole of
    /// `x` when it is shorter than one window).
    static func windowedPower(_ x: [Double], frequency: Double) -> Double {
        guard x.count >= 2 * windowSamples else { return goertzel(x, frequency: frequency) }
        let starts = Array(stride(from: 0, through: x.count - windowSamples, by: windowSamples))
        let total = starts.reduce(0.0) { $0 + goertzel(Array(x[$1..<($1 + windowSamples)]), frequency: frequency) }
        return total / Double(starts.count)
    }

    static func analyze(samples: [Int16], candidates: [Double]) -> ToneReport {
        let x = samples.map { Double($0) / 32768 }
        let rms = x.isEmpty ? 0 : (x.reduce(0) { $0 + $1 * $1 } / Double(x.count)).squareRoot()
        var power: [Double: Double] = [:]
        for f in candidates { power[f] = windowedPower(x, frequency: f) }
        let sorted = power.sorted { $0.value > $1.value }
        let best = sorted.first ?? (key: 0, value: 0)
        let second = sorted.dropFirst().first?.value ?? 0
        return ToneReport(seconds: Double(x.count) / sampleRate,
                          rmsDBFS: 20 * log10(max(rms, 1e-10)),
                          power: power, dominant: best.key,
                          dominanceDB: 10 * log10(max(best.value, 1e-20) / max(second, 1e-20)))
    }

    /// Analyses audio stream `audioStream` of `path` against `candidates`.
    static func analyze(_ path: String, audioStream: Int, candidates: [Double], start: Double = 0.5,
                        duration: Double? = nil) throws -> ToneReport {
        analyze(samples: try samples(path, audioStream: audioStream, start: start, duration: duration),
                candidates: candidates)
    }
}
