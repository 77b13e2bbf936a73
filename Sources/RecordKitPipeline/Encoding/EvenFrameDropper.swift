import Synchronization

/// Decides which frames a video encoder stage that fell behind drops, so that losses are spread
/// out instead of coming in bursts.
///
/// The share of frames kept follows the queue: every frame while fewer than ``softLimit`` wait
/// (a short spike, such as x264's first frame, is absorbed), none at ``hardLimit``, and in
/// between a share that falls linearly with each waiting frame. An encoder that can do only a
/// part of the rate thus settles where the share kept equals what it can encode, in the middle
/// of the queue, which leaves room for the bursts in which a frame-threaded encoder on a loaded
/// machine makes progress. The frames kept are chosen by error diffusion (each frame adds the
/// share to a credit; a frame is kept when the credit reaches one), so they are evenly spaced:
/// at a share of one half or more no two consecutive frames are lost (the longest hole is two
/// frame periods), at a third no three, and so on. Only at ``hardLimit`` (the encoder stalled)
/// is every frame dropped until a slot frees.
///
/// The previous design kept every other frame beyond the soft limit: an encoder that could do
/// less than half the rate then sat at the hard limit, where any slow moment dropped everything
/// (holes of 6–9 frame periods under a real competing load; docs/ENCODING.md, "Overload").
///
/// Threading: ``admit(pending:)`` is called from the capture thread only; the state is behind a
/// mutex so the counters can be read from anywhere.
final class EvenFrameDropper: Sendable {
    /// Frames waiting (queued or encoding) below which every frame is kept.
    let softLimit: Int
    /// Frames waiting at which every frame is dropped.
    let hardLimit: Int

    private struct State {
        var credit = 0.0
        var run = 0
        var longestRun = 0
        var reported = false
    }
    private let state = Mutex(State())

    init(softLimit: Int, hardLimit: Int) {
        precondition(softLimit >= 0 && hardLimit > softLimit)
        self.softLimit = softLimit
        self.hardLimit = hardLimit
    }

    /// The share of frames kept (0...1) while `pending` frames wait.
    func keepShare(pending: Int) -> Double {
        if pending < softLimit { return 1 }
        if pending >= hardLimit { return 0 }
        return Double(hardLimit - pending) / Double(hardLimit - softLimit + 1)
    }

    /// Whether the frame arriving now, with `pending` frames already waiting, is kept. With
    /// `conversionFull` (every conversion slot busy: the frame cannot be taken at all) it is
    /// dropped, and counted in the run of drops, so the frames after it are spaced from it.
    func admit(pending: Int, conversionFull: Bool = false) -> Bool {
        let share = conversionFull ? 0 : keepShare(pending: pending)
        return state.withLock { state in
            let keep: Bool
            if share >= 1 {
                keep = true
                state.credit = 0
            } else if share <= 0 {
                keep = false
            } else {
                state.credit += share
                // The longest run of drops this share allows: one at a half, two at a third.
                let allowedRun = Int((1 / share).rounded(.up)) - 1
                keep = state.credit >= 1 || state.run >= allowedRun
                if keep { state.credit = max(0, state.credit - 1) }
            }
            if keep {
                state.run = 0
            } else {
                state.run += 1
                state.longestRun = max(state.longestRun, state.run)
            }
            return keep
        }
    }

    /// True exactly once: the first time it is asked after a drop (so the user is told once).
    func shouldReport() -> Bool {
        state.withLock { state in
            defer { state.reported = true }
            return !state.reported
        }
    }

    /// The longest run of consecutive dropped frames.
    var longestDropRun: Int { state.withLock { $0.longestRun } }
}
