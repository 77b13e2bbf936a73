import RecordKit
import RecordKitCapture
import Synchronization

/// The audio half of a recording: each captured track is placed on the broadcast timeline by an
/// ``AudioTrackAssembler`` (gaps become silence), optionally mixed, then handed raw to the
/// dispatcher or to the shared AAC encoders.
final class AudioGraph: @unchecked Sendable {
    private let timeline: Timeline
    private var assemblers: [SampleBufferType: AudioTrackAssembler] = [:]
    private let mixer: MixerBox
    /// Where a finished PCM block of each type goes (raw routes and encoder stages).
    private let sinks: [SampleBufferType: [@Sendable (SampleBuffer) -> Void]]
    private let mixedWanted: Bool
    /// Each track's level, for meters.
    let levels = AudioLevelMeter()
    /// Which tracks carry silence (the live microphone and app-audio switches).
    let muteSwitch: AudioMuteSwitch

    /// Builds the graph for `tracks` (`.audioApp`, `.audioMic`); `sinks` says where blocks of each
    /// type (including `.audioMixed`) go.
    init(timeline: Timeline, tracks: [SampleBufferType], sinks: [SampleBufferType: [@Sendable (SampleBuffer) -> Void]],
         mutedAtStart: Set<SampleBufferType> = []) {
        self.timeline = timeline
        self.muteSwitch = AudioMuteSwitch(mutedAtStart: mutedAtStart)
        self.sinks = sinks
        self.mixedWanted = !(sinks[.audioMixed] ?? []).isEmpty
        let mixedSinks = sinks[.audioMixed] ?? []
        // With both tracks, mix them; with one, the mixed track is that track re-labelled.
        if mixedWanted && tracks.count == 2 {
            mixer = MixerBox(PCMMixer { block in for s in mixedSinks { s(block) } })
        } else {
            mixer = MixerBox(nil)
        }
        let relabelAsMixed = mixedWanted && tracks.count == 1
        for type in tracks {
            let own = sinks[type] ?? []
            let mixerRef = mixer
            assemblers[type] = AudioTrackAssembler(type: type) { block in
                for s in own { s(block) }
                if relabelAsMixed {
                    let mixed = block.replacing(type: .audioMixed)
                    for s in mixedSinks { s(mixed) }
                }
                mixerRef.add(block)
            }
        }
    }

    /// Places one captured chunk of `type` (called on PulseAudio's thread).
    func deliver(_ type: SampleBufferType, samples: UnsafeBufferPointer<Float>, frameCount: Int, captureNs: UInt64) {
        guard assemblers[type] != nil, frameCount > 0 else { return }
        guard let silent = muteSwitch.silence(type, captureNs: captureNs, frameCount: frameCount) else {
            return place(type, samples: samples, frameCount: frameCount, captureNs: captureNs)
        }
        // A muted stretch: the same chunk with its muted frames zeroed (no gap, same timestamps).
        let count = min(samples.count, frameCount * 2)
        withUnsafeTemporaryAllocation(of: Float.self, capacity: count) { copy in
            _ = copy.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: samples[0..<count]))
            for i in min(count, silent.lowerBound * 2)..<min(count, silent.upperBound * 2) { copy[i] = 0 }
            place(type, samples: UnsafeBufferPointer(copy), frameCount: frameCount, captureNs: captureNs)
        }
    }

    private func place(_ type: SampleBufferType, samples: UnsafeBufferPointer<Float>, frameCount: Int, captureNs: UInt64) {
        guard let assembler = assemblers[type] else { return }
        levels.measure(type, samples: UnsafeBufferPointer(rebasing: samples[0..<min(samples.count, frameCount * 2)]), nowNs: captureNs)
        let durationNs = UInt64(frameCount) * 1_000_000_000 / 48_000
        guard let mapped = timeline.mapInterval(start: captureNs, duration: durationNs) else { return }
        let skip = min(frameCount, Int(mapped.skipNs * 48_000 / 1_000_000_000))
        guard skip < frameCount else { return }
        let channels = 2
        let rest = UnsafeBufferPointer(rebasing: samples[(skip * channels)..<(frameCount * channels)])
        assembler.append(rest, frameCount: frameCount - skip, broadcastTimeNs: mapped.broadcastNs)
    }

    /// Each track's smoothed placement error in milliseconds (positive: audio late), by type name.
    var offsetsMs: [String: Double] {
        var result: [String: Double] = [:]
        for (type, a) in assemblers { result[type.rawValue] = Double(a.offsetNs) / 1e6 }
        return result
    }

    /// Fills every track that has fallen silent up to `broadcastNs`.
    func fillSilence(until broadcastNs: Int64) {
        for a in assemblers.values { a.fillSilence(untilBroadcastTimeNs: broadcastNs) }
    }

    /// Ends every track at `broadcastNs`: silence up to it, then the last partial block.
    func finish(at broadcastNs: Int64) {
        for type in [SampleBufferType.audioApp, .audioMic] {
            guard let a = assemblers[type] else { continue }
            a.fillSilence(untilBroadcastTimeNs: broadcastNs)
            a.finish()
        }
        mixer.finish()
    }
}

/// The app+mic mixer behind a lock: the two tracks' blocks arrive from PulseAudio's thread and
/// from the silence timer.
private final class MixerBox: Sendable {
    private let mixer: Mutex<PCMMixerHolder>
    init(_ mixer: PCMMixer?) { self.mixer = Mutex(PCMMixerHolder(mixer: mixer)) }
    func add(_ block: SampleBuffer) { mixer.withLock { $0.mixer?.add(block) } }
    func finish() { mixer.withLock { $0.mixer?.finish() } }
}

private struct PCMMixerHolder: @unchecked Sendable {
    var mixer: PCMMixer?
}
