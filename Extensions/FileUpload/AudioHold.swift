import RecordKit

/// Audio packets that reached the file handler before its video reached their time, held until
/// the video decides which part they belong to.
///
/// Why: a split's cut is the presentation time of a video key frame, known only when that key
/// frame arrives, and every audio packet from before the cut belongs to the part it closes, every
/// later one to the next part. At variable frame rate a file's encode keeps x264's look-ahead
/// (about 0.4 s at 30 fps) and its handler's merger holds audio only 0.25 s for it (a still
/// screen's video comes in drained bursts), so audio arrives 0.06-0.15 s ahead of the video:
/// the packets after the cut that came before its key frame went to the closed part (measured,
/// docs/ENCODING.md, "A split part's audio ran past its cut"). Held here, a packet goes on once a video packet
/// presented after it arrived: a later key frame is presented later still (x264's GOPs are
/// closed: an IDR comes after every picture shown before it), so no cut can fall before the
/// packet any more.
///
/// Bounded: a packet also goes on once audio more than ``maxLeadNs`` newer arrived (the video
/// lags by more than that: a still screen between drains, an encoder falling behind), as
/// libavformat's interleaving (`max_interleave_delta`, 0.5 s for MP4) would let it go, so what a
/// kill -9 keeps does not change; ``maxLeadNearSplitNs`` while a split is asked for or due, so that
/// the cut stays exact under load. Packets keep their arrival order (each track's stays its own).
///
/// A value type, used on the handler's serial queue only.
struct AudioHold {
    /// How far audio may run ahead of the video before it goes on anyway (nanoseconds of media time).
    static let maxLeadNs: Int64 = 500_000_000
    /// The same while a split is asked for or due: x264's look-ahead plus up to 24 pictures queued
    /// for a busy encoder (0.8 s at 30 fps), with room to spare.
    static let maxLeadNearSplitNs: Int64 = 2_000_000_000

    private var held: [SampleBuffer] = []
    /// The latest presentation time of a video packet (nanoseconds; `.min` before the first).
    private(set) var videoNs: Int64 = .min
    /// The newest audio presentation time held or let go (nanoseconds; `.min` before the first).
    private(set) var newestAudioNs: Int64 = .min

    /// Whether nothing is held.
    var isEmpty: Bool { held.isEmpty }

    /// Holds the audio packet `sample`; returns, in arrival order, the held packets that may go
    /// on now (see ``release(maxLeadNs:)``).
    mutating func hold(_ sample: SampleBuffer, maxLeadNs: Int64) -> [SampleBuffer] {
        held.append(sample)
        newestAudioNs = max(newestAudioNs, sample.presentationTime.nanoseconds)
        return release(maxLeadNs: maxLeadNs)
    }

    /// Notes a video packet presented at `ptsNs` (after the handler placed it, and split at it if
    /// it is the cut); returns, in arrival order, the held packets that may go on now.
    mutating func videoArrived(ptsNs: Int64, maxLeadNs: Int64) -> [SampleBuffer] {
        videoNs = max(videoNs, ptsNs)
        return release(maxLeadNs: maxLeadNs)
    }

    /// Every held packet, in arrival order (the recording ends: no cut can come any more).
    mutating func releaseAll() -> [SampleBuffer] {
        defer { held = [] }
        return held
    }

    /// The held packets presented before the latest video packet, or more than `maxLeadNs`
    /// before the newest audio; the others stay. Each track's packets come in presentation
    /// order, so what goes is a prefix of each track's and the order within a track is kept.
    private mutating func release(maxLeadNs: Int64) -> [SampleBuffer] {
        let bound = max(videoNs, newestAudioNs == .min ? .min : newestAudioNs - maxLeadNs)
        guard held.contains(where: { $0.presentationTime.nanoseconds < bound }) else { return [] }
        var going: [SampleBuffer] = []
        var staying: [SampleBuffer] = []
        for sample in held {
            if sample.presentationTime.nanoseconds < bound { going.append(sample) } else { staying.append(sample) }
        }
        held = staying
        return going
    }
}
