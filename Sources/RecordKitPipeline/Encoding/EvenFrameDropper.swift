import Synchronization

/// Decides which frames a video encoder stage that fell behind drops, so that losses are spread
/// out instead of coming in bursts.
///
/// While at most ``softLimit`` frames wait, every frame is kept (a short spike, such as x264's
/// first frame, is absorbed). Beyond that, every other frame is dropped: the encoder gets half
/// the rate and catches up, and no two consecutive frames are lost, so the longest hole between
/// two kept frames is two frame periods. Only when ``hardLimit`` frames wait (the encoder is
/// stalled, or cannot even do half the rate) is every frame dropped until one slot frees.
///
/// Threading: ``admit(pending:)`` is called from the capture thread only; the counters are atomic.
final class EvenFrameDropper: Sendable {
    /// Frames waiting (queued or encoding) beyond which every other frame is dropped.
    let softLimit: Int
    /// Frames waiting at which every frame is dropped.
    let hardLimit: Int
    private let lastDropped = Atomic<Bool>(false)
    private let reported = Atomic<Bool>(false)
    /// The longest run of consecutive drops so far.
    private let longestRun = Atomic<Int>(0)
    private let run = Atomic<Int>(0)

    init(softLimit: Int, hardLimit: Int) {
        self.softLimit = softLimit
        self.hardLimit = hardLimit
    }

    /// Whether the frame arriving now, with `pending` frames already waiting, is kept.
    func admit(pending: Int) -> Bool {
        let drop = pending >= hardLimit || (pending >= softLimit && !lastDropped.load(ordering: .relaxed))
        lastDropped.store(drop, ordering: .relaxed)
        if drop {
            let n = run.add(1, ordering: .relaxed).newValue
            if n > longestRun.load(ordering: .relaxed) { longestRun.store(n, ordering: .relaxed) }
        } else {
            run.store(0, ordering: .relaxed)
        }
        return !drop
    }

    /// True exactly once: the first time it is asked after a drop (so the user is told once).
    func shouldReport() -> Bool {
        !reported.exchange(true, ordering: .relaxed)
    }

    /// The longest run of consecutive dropped frames.
    var longestDropRun: Int { longestRun.load(ordering: .relaxed) }
}
