import Foundation
import RecordKit
import Synchronization

/// The level of each captured audio track, for meters (the preview page, `status --json`):
/// the RMS of the most recent chunk in dBFS (-100 for silence), held briefly: a new chunk
/// replaces the value when it is louder or when the held one is older than ``holdNs``.
///
/// Cost: one pass over the chunk's samples on PulseAudio's thread (480 stereo frames per 10 ms).
/// Threading: ``measure(_:samples:nowNs:)`` from the audio thread, ``levelsDb`` from any thread.
final class AudioLevelMeter: Sendable {
    /// How long a loud chunk's level is held before a quieter one replaces it.
    static let holdNs: UInt64 = 150_000_000

    private struct Held {
        var db: Double
        var atNs: UInt64
    }
    private let held = Mutex<[SampleBufferType: Held]>([:])

    /// Measures one chunk of interleaved float samples of `type`.
    func measure(_ type: SampleBufferType, samples: UnsafeBufferPointer<Float>, nowNs: UInt64) {
        guard !samples.isEmpty else { return }
        var sum: Float = 0
        for sample in samples { sum += sample * sample }
        let rms = Double((sum / Float(samples.count)).squareRoot())
        let db = rms > 0.00001 ? max(-100, 20 * log10(rms)) : -100
        held.withLock { levels in
            if let old = levels[type], old.db > db, nowNs - old.atNs < Self.holdNs { return }
            levels[type] = Held(db: db, atNs: nowNs)
        }
    }

    /// Each track's level in dBFS, by type name (`audioApp`, `audioMic`).
    var levelsDb: [String: Double] {
        held.withLock { levels in
            var result: [String: Double] = [:]
            for (type, level) in levels { result[type.rawValue] = (level.db * 10).rounded() / 10 }
            return result
        }
    }
}
