import RecordKit

/// The buffer itself: encoded samples in arrival (timeline) order, starting at a video key
/// frame, bounded by time and bytes by dropping whole groups of pictures from the front.
///
/// A value type with no locks; ``ReplayBufferHandler`` keeps it under a mutex so that a save
/// takes a snapshot (references only) in microseconds.
struct ReplayRing {
    /// Recorded time to cover, in nanoseconds.
    let maxDurationNs: Int64
    /// Most bytes to hold.
    let maxBytes: Int

    /// Dropped entries are nil until the array is compacted, so their memory goes at once.
    private var samples: [SampleBuffer?] = []
    private var start = 0
    /// Indices in `samples` of the video key frames at or after `start`.
    private var keyFrames: [Int] = []
    /// Where the newest video frame ends, in broadcast nanoseconds.
    private(set) var newestVideoEndNs: Int64 = 0
    /// Bytes of encoded media held.
    private(set) var bytes = 0

    init(maxDurationNs: Int64, maxBytes: Int) {
        self.maxDurationNs = maxDurationNs
        self.maxBytes = maxBytes
    }

    /// Seconds of video held (first key frame to the end of the newest frame).
    var seconds: Double {
        guard let first = keyFrames.first else { return 0 }
        return Double(max(0, newestVideoEndNs - samples[first]!.presentationTime.nanoseconds)) / 1e9
    }

    /// Adds one encoded sample. Nothing is kept before the first video key frame (a clip must
    /// start where a decoder can); then whole groups of pictures go from the front while the
    /// rest still covers the duration, or while the bytes exceed their bound.
    mutating func append(_ sample: SampleBuffer) {
        guard case .packet(let packet) = sample.payload else { return }
        if sample.type == .video {
            if packet.isKeyFrame {
                keyFrames.append(samples.count)
            } else if keyFrames.isEmpty {
                return
            }
            newestVideoEndNs = max(newestVideoEndNs, (sample.presentationTime.nanoseconds + sample.duration.nanoseconds))
        } else if keyFrames.isEmpty {
            return
        }
        samples.append(sample)
        bytes += packet.data.count
        trim()
    }

    /// The samples held, in order (references: no media is copied).
    func snapshot() -> [SampleBuffer] { samples[start...].compactMap { $0 } }

    /// Drops everything.
    mutating func removeAll() {
        samples = []
        start = 0
        keyFrames = []
        bytes = 0
        newestVideoEndNs = 0
    }

    private mutating func trim() {
        while keyFrames.count >= 2 {
            let next = keyFrames[1]
            let coveredWithoutFirst = newestVideoEndNs - (samples[next]?.presentationTime.nanoseconds ?? 0)
            guard coveredWithoutFirst >= maxDurationNs || bytes > maxBytes else { break }
            for index in start..<next {
                if case .packet(let p)? = samples[index]?.payload { bytes -= p.data.count }
                samples[index] = nil
            }
            start = next
            keyFrames.removeFirst()
        }
        // Compact now and then, so the array does not grow without end.
        if start > 1024, start * 2 > samples.count {
            samples.removeFirst(start)
            keyFrames = keyFrames.map { $0 - start }
            start = 0
        }
    }
}
