import RecordKit
import RecordKitMedia

/// The buffer itself: encoded samples in arrival (timeline) order, starting at a video key
/// frame, bounded by time and bytes by dropping whole groups of pictures from the front (a
/// `GOPRing` with the replay buffer's policy: keep the newest groups that cover the duration).
///
/// A value type with no locks; ``ReplayBufferHandler`` keeps it under a mutex so that a save
/// takes a snapshot (references only) in microseconds.
struct ReplayRing {
    /// Recorded time to cover, in nanoseconds.
    let maxDurationNs: Int64
    /// Most bytes to hold.
    let maxBytes: Int

    private var ring = GOPRing()
    /// Where the newest video frame ends, in broadcast nanoseconds.
    private(set) var newestVideoEndNs: Int64 = 0

    init(maxDurationNs: Int64, maxBytes: Int) {
        self.maxDurationNs = maxDurationNs
        self.maxBytes = maxBytes
    }

    /// Bytes of encoded media held.
    var bytes: Int { ring.bytes }

    /// Seconds of video held (first key frame to the end of the newest frame).
    var seconds: Double {
        guard let first = ring.keyFrame(ofGroup: 0) else { return 0 }
        return Double(max(0, newestVideoEndNs - first.presentationTime.nanoseconds)) / 1e9
    }

    /// Adds one encoded sample. Nothing is kept before the first video key frame (a clip must
    /// start where a decoder can); then whole groups of pictures go from the front while the
    /// rest still covers the duration, or while the bytes exceed their bound.
    mutating func append(_ sample: SampleBuffer) {
        guard ring.append(sample) else { return }
        if sample.type == .video {
            newestVideoEndNs = max(newestVideoEndNs, sample.presentationTime.nanoseconds + sample.duration.nanoseconds)
        }
        while ring.groupCount >= 2, let next = ring.keyFrame(ofGroup: 1),
              newestVideoEndNs - next.presentationTime.nanoseconds >= maxDurationNs || ring.bytes > maxBytes {
            ring.dropOldestGroup()
        }
    }

    /// The samples held, in order (references: no media is copied).
    func snapshot() -> [SampleBuffer] { ring.snapshot() }

    /// Drops everything.
    mutating func removeAll() {
        ring.dropAll()
        newestVideoEndNs = 0
    }
}
