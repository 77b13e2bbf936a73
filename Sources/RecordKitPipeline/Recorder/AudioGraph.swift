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
    /// Where a finished PCM block of each type goes (raw routes and encoder stages), by the
    /// route it feeds: changed when an output attaches or detaches.
    private let sinks: AudioSinks
    /// Each track's level, for meters.
    let levels = AudioLevelMeter()
    /// Which tracks carry silence (the live microphone and app-audio switches).
    let muteSwitch: AudioMuteSwitch

    /// Where finished PCM blocks go: for each type (including `.audioMixed`), the route fed and its sink.
    typealias Sinks = [SampleBufferType: [(route: SampleRoute, sink: @Sendable (SampleBuffer) -> Void)]]

    /// Builds the graph for `tracks` (`.audioApp`, `.audioMic`); `sinks` says where blocks of each
    /// type (including `.audioMixed`) go. With two tracks they are mixed for the "mixed" track even
    /// while no sink wants it (an output that wants it may attach later; mixing is cheap next to encoding).
    init(timeline: Timeline, tracks: [SampleBufferType], sinks: Sinks, mutedAtStart: Set<SampleBufferType> = []) {
        self.timeline = timeline
        self.muteSwitch = AudioMuteSwitch(mutedAtStart: mutedAtStart)
        let box = AudioSinks(sinks)
        self.sinks = box
        // With both tracks, mix them; with one, the mixed track is that track re-labelled.
        if tracks.count == 2 {
            mixer = MixerBox(PCMMixer { block in box.deliver(block, as: .audioMixed) })
        } else {
            mixer = MixerBox(nil)
        }
        let relabelAsMixed = tracks.count == 1
        for type in tracks {
            let mixerRef = mixer
            assemblers[type] = AudioTrackAssembler(type: type) { block in
                box.deliver(block, as: type)
                if relabelAsMixed, box.wants(.audioMixed) { box.deliver(block.replacing(type: .audioMixed), as: .audioMixed) }
                mixerRef.add(block)
            }
        }
    }

    /// Adds sinks (an attached output's new routes).
    func addSinks(_ more: Sinks) { sinks.add(more) }

    /// Removes the sinks that feed `routes` (routes no output wants any more).
    func removeSinks(for routes: Set<SampleRoute>) { sinks.remove(routes) }

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

/// The audio graph's sinks behind a lock: read for every block, changed when outputs come and go.
private final class AudioSinks: Sendable {
    private let sinks: Mutex<AudioGraph.Sinks>
    init(_ sinks: AudioGraph.Sinks) { self.sinks = Mutex(sinks) }
    func deliver(_ block: SampleBuffer, as type: SampleBufferType) {
        for entry in sinks.withLock({ $0[type] }) ?? [] { entry.sink(block) }
    }
    func wants(_ type: SampleBufferType) -> Bool { sinks.withLock { !($0[type] ?? []).isEmpty } }
    func add(_ more: AudioGraph.Sinks) { sinks.withLock { s in s.merge(more) { $0 + $1 } } }
    func remove(_ routes: Set<SampleRoute>) {
        sinks.withLock { s in
            for (type, list) in s { s[type] = list.filter { !routes.contains($0.route) } }
        }
    }
}
