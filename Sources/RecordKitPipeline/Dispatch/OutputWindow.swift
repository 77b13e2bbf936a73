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
/// Raw PCM is numbered on the output's own count too (``PCMData/startFrame``: the frames
/// delivered to this output on that track before): an output attached to a running capture
/// gets 0 for its first block, as an output that started with the capture does, and after a
/// pause of its own the count goes on where it stopped, so consecutive blocks stay contiguous
/// (paused spans excluded), as the SDK promises. The capture's count would give an attached
/// consumer frame numbers from before it existed, and a gap at every resume of its own.
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
    /// Counts the stretches (a stretch starts at the attach and at each resume): a PCM track
    /// re-bases its frame numbers at its first block of each stretch.
    private var stretch = 0
    /// Per raw PCM track: the output's own frame count and how it maps the capture's.
    private var pcmCounts: [SampleBufferType: PCMCount] = [:]

    private struct PCMCount {
        /// The output's own number of the next frame (frames delivered so far).
        var next: Int64 = 0
        /// Subtracted from the capture's frame numbers in ``stretch``.
        var shift: Int64 = 0
        var stretch = -1
    }

    /// Where a sample goes on the output's own time: ``apply(to:)`` makes the sample the output gets.
    struct Placement: Sendable {
        /// Subtracted from the sample's times.
        let offsetNs: Int64
        /// Subtracted from a PCM sample's ``PCMData/startFrame`` (0 for other samples).
        let frameShift: Int64

        /// `sample` on the output's time: shifted (``SampleBuffer/shifted(byNanoseconds:)``),
        /// PCM renumbered. The same instance when nothing moves (zero copy).
        func apply(to sample: SampleBuffer) -> SampleBuffer {
            let moved = sample.shifted(byNanoseconds: offsetNs)
            guard frameShift != 0, case .pcm(let pcm) = sample.payload else { return moved }
            return moved.replacing(payload: .pcm(PCMData(buffer: pcm.buffer, frameCount: pcm.frameCount, startFrame: pcm.startFrame - frameShift)))
        }
    }

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
    mutating func admit(_ sample: SampleBuffer) -> Int64? { placement(of: sample)?.offsetNs }

    /// Where `sample` goes on the output's time when it is the output's, or nil when it is not
    /// (dropped, not counted). Cheap: the caller applies it (``Placement/apply(to:)``) outside its lock.
    mutating func placement(of sample: SampleBuffer) -> Placement? {
        guard let offset = place(sample) else { return nil }
        deliveredEndNs = max(deliveredEndNs, sample.timelineTime.nanoseconds - offset + sample.duration.nanoseconds)
        guard case .pcm(let pcm) = sample.payload else { return Placement(offsetNs: offset, frameShift: 0) }
        var count = pcmCounts[sample.type] ?? PCMCount()
        if count.stretch != stretch {
            count.shift = pcm.startFrame - count.next
            count.stretch = stretch
        }
        count.next = max(count.next, pcm.startFrame - count.shift + Int64(pcm.frameCount))
        pcmCounts[sample.type] = count
        return Placement(offsetNs: offset, frameShift: count.shift)
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
            stretch += 1
            pausedAtNs = nil
            resumeFromNs = nil
            return offsetNs
        }
        guard let start = startNs else {
            guard pts >= waitFromNs, opensStretch(sample) else { return nil }
            startNs = pts
            offsetNs = pts
            stretch += 1
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
