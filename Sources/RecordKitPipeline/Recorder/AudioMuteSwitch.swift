import RecordKit
import Synchronization

/// ReplayKit's `isMicrophoneEnabled` on a running recording, for any audio track: which tracks
/// carry silence and since when. A muted track keeps flowing (same blocks, same timestamps,
/// no gap); only its samples become zero, from the switch's capture-clock instant on, so the
/// cut sits where the switch happened, not where PulseAudio's latency delivered the chunk.
///
/// Threading: any thread (a lock); ``silence(_:captureNs:frameCount:)`` is called on
/// PulseAudio's thread for every chunk and only reads the state.
final class AudioMuteSwitch: Sendable {
    private struct Setting {
        var muted: Bool
        /// From this monotonic instant (ns) on; frames before it have the opposite state.
        var sinceNs: UInt64
    }
    private let settings = Mutex<[SampleBufferType: Setting]>([:])

    /// Tracks muted from the start (their whole recording is silent until switched on).
    init(mutedAtStart: Set<SampleBufferType>) {
        settings.withLock { s in for t in mutedAtStart { s[t] = Setting(muted: true, sinceNs: 0) } }
    }

    /// Switches `type` muted or not from the monotonic instant `atNs`; false when it already was.
    func set(_ type: SampleBufferType, muted: Bool, atNs: UInt64) -> Bool {
        settings.withLock { s in
            if (s[type]?.muted ?? false) == muted { return false }
            s[type] = Setting(muted: muted, sinceNs: atNs)
            return true
        }
    }

    /// Whether `type` is muted now.
    func isMuted(_ type: SampleBufferType) -> Bool { settings.withLock { $0[type]?.muted ?? false } }

    /// The muted tracks, by type name, sorted.
    var mutedNames: [String] { settings.withLock { s in s.filter(\.value.muted).map(\.key.rawValue).sorted() } }

    /// The frames of a chunk of `type` captured at `captureNs` (48 kHz) that must be silent, as
    /// a range of frame indices; nil when none.
    func silence(_ type: SampleBufferType, captureNs: UInt64, frameCount: Int) -> Range<Int>? {
        guard let s = settings.withLock({ $0[type] }) else { return nil }
        // Frames before `split` were captured before the switch (the opposite state).
        let split: Int
        if s.sinceNs <= captureNs {
            split = 0
        } else {
            let ahead = s.sinceNs - captureNs
            split = min(frameCount, Int((ahead * 48_000 + 999_999_999) / 1_000_000_000))
        }
        let range = s.muted ? split..<frameCount : 0..<split
        return range.isEmpty ? nil : range
    }
}
