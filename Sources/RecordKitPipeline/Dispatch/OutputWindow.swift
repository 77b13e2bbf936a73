import RecordKit

/// Which samples of the shared broadcast timeline belong to one output, and how far its own
/// time is shifted, so that outputs can come and go on a running capture (as ScreenCaptureKit's
/// `addRecordingOutput` and OBS's independent record, stream and replay buffer do).
///
/// An output attached to a running capture starts at the first key frame at or after the
/// moment it was attached (its video encoder is asked for one at once); its times are shifted
/// so that key frame is at zero, and audio before it is not its own. A per-output pause holds
/// back everything from the pause on; on resume the output continues at the next key frame
/// and its time goes on where it stopped (no gap). A cut ends the output: nothing at or after
/// the cut is its own, and ``hasPassed(_:)`` says when each stream reached it (then nothing
/// the output should have is still in an encoder).
///
/// A value type, used under its ``HandlerRunner``'s lock.
struct OutputWindow: Sendable {
    /// Whether the output has a video stream: then a key frame starts it, else any sample does.
    let hasVideo: Bool
    /// Where the output's current stretch starts (nil: at the next key frame at or after `waitFromNs`).
    private var startNs: Int64?
    private var waitFromNs: Int64 = 0
    /// Subtracted from every delivered sample's times.
    private(set) var offsetNs: Int64 = 0
    /// The output is paused from this broadcast time on.
    private var pausedAtNs: Int64?
    /// A resume asked at this broadcast time: the stretch after the pause starts at the next key frame from it.
    private var resumeFromNs: Int64?
    /// Nothing at or after this broadcast time is the output's.
    private(set) var cutNs: Int64?
    private var passedCut: Set<SampleBufferType> = []
    /// The output's own time where what was delivered ends: decode time (for packets) plus
    /// duration, the latest of any stream. A resumed stretch continues from here, so decode
    /// times never go back (an encoder with B-frames decodes its key frame before showing it).
    private var deliveredEndNs: Int64 = .min

    /// An output that was there when capture started: every sample, unshifted.
    static func fromStart(hasVideo: Bool) -> OutputWindow {
        var w = OutputWindow(hasVideo: hasVideo)
        w.startNs = .min
        return w
    }

    /// An output attached at broadcast time `atNs`.
    static func attached(at atNs: Int64, hasVideo: Bool) -> OutputWindow {
        var w = OutputWindow(hasVideo: hasVideo)
        w.waitFromNs = atNs
        return w
    }

    private init(hasVideo: Bool) { self.hasVideo = hasVideo }

    /// Whether the output is paused on its own.
    var isPaused: Bool { pausedAtNs != nil }

    /// Whether the output waits for a key frame (just attached, or resumed).
    var awaitsKeyFrame: Bool { startNs == nil || resumeFromNs != nil }

    /// The shift for `sample` when it is the output's, or nil when it is not (dropped, not counted).
    mutating func admit(_ sample: SampleBuffer) -> Int64? {
        guard let offset = place(sample) else { return nil }
        deliveredEndNs = max(deliveredEndNs, sample.timelineTime.nanoseconds - offset + sample.duration.nanoseconds)
        return offset
    }

    private mutating func place(_ sample: SampleBuffer) -> Int64? {
        let pts = sample.presentationTime.nanoseconds
        if let cut = cutNs, pts >= cut {
            passedCut.insert(sample.type)
            return nil
        }
        if let paused = pausedAtNs {
            if let start = startNs, pts < paused, pts >= start { return offsetNs }
            guard let resumeFrom = resumeFromNs, pts >= resumeFrom, opensStretch(sample) else { return nil }
            // The new stretch's first decode time goes where the delivered ones ended.
            let decodeNs = sample.timelineTime.nanoseconds
            offsetNs = startNs == nil || deliveredEndNs == .min ? pts : decodeNs - deliveredEndNs
            startNs = pts
            pausedAtNs = nil
            resumeFromNs = nil
            return offsetNs
        }
        guard let start = startNs else {
            guard pts >= waitFromNs, opensStretch(sample) else { return nil }
            startNs = pts
            offsetNs = pts
            return offsetNs
        }
        return pts >= start ? offsetNs : nil
    }

    /// Pauses from broadcast time `atNs` (no effect when paused already).
    mutating func pause(at atNs: Int64) {
        guard pausedAtNs == nil else { return }
        pausedAtNs = atNs
        resumeFromNs = nil
    }

    /// Resumes at the first key frame from broadcast time `atNs` (no effect when not paused).
    mutating func resume(at atNs: Int64) {
        guard pausedAtNs != nil else { return }
        resumeFromNs = atNs
    }

    /// Ends the output at broadcast time `atNs`.
    mutating func cut(at atNs: Int64) { cutNs = min(cutNs ?? .max, atNs) }

    /// Whether samples of every type in `types` reached the cut.
    func hasPassed(_ types: Set<SampleBufferType>) -> Bool { cutNs != nil && types.isSubset(of: passedCut) }

    /// Whether `sample` may open a stretch: a key frame (or a raw picture), or any audio of an output without video.
    private func opensStretch(_ sample: SampleBuffer) -> Bool {
        guard sample.type == .video else { return !hasVideo }
        if case .packet(let p) = sample.payload { return p.isKeyFrame }
        return true
    }
}
