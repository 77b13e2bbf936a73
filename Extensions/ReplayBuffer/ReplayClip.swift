import RecordKit
import RecordKitMedia

/// The part of a buffer snapshot a save writes, re-timed to start at zero.
///
/// Video starts on the last key frame at or before the requested start (so at most one group
/// of pictures earlier), or on the oldest one when the buffer holds less than asked, and ends
/// with the last frame before which no frame is missing (B frames the encoder still holds). Each audio
/// track starts with its first packet at or after that key frame's presentation time (so within
/// one audio frame of the video) and ends with the video. Every timestamp has the key frame's
/// presentation time subtracted.
struct ReplayClip {
    /// The samples to write, in timeline order, re-timed.
    let samples: [SampleBuffer]
    /// Seconds of video in the clip.
    let seconds: Double
    /// Broadcast time (seconds) of the clip's first video frame in the recording.
    let startSeconds: Double
    /// The markers inside the clip, as chapters on its timeline.
    var chapters: [MediaChapter] = []

    /// The clip of the last `seconds` (nil: everything) of `snapshot`; nil when the snapshot
    /// holds no video.
    static func make(from snapshot: [SampleBuffer], seconds: Double?, annotations: [BroadcastAnnotation] = []) -> ReplayClip? {
        let keyFrames = snapshot.indices.filter { i in
            if snapshot[i].type == .video, case .packet(let p) = snapshot[i].payload { return p.isKeyFrame }
            return false
        }
        guard let oldestKey = keyFrames.first else { return nil }
        // The encoder emits frames in decode order: an anchor (I or P) frame, then the B frames
        // shown before it. A snapshot can end after an anchor whose B frames are still in the
        // encoder. A decode-order prefix is complete when the next frame shows after everything
        // in it (the next anchor): no frame of the prefix's span can still come. The clip ends
        // with the last such prefix (with constant or variable frame rate alike).
        let videoIndices = (oldestKey..<snapshot.count).filter { snapshot[$0].type == .video }
        var lastComplete = oldestKey
        var maxPTS = Int64.min
        for (position, index) in videoIndices.enumerated() where position + 1 < videoIndices.count {
            maxPTS = max(maxPTS, snapshot[index].presentationTime.nanoseconds)
            if snapshot[videoIndices[position + 1]].presentationTime.nanoseconds > maxPTS { lastComplete = index }
        }
        var endNs = Int64.min
        for index in videoIndices where index <= lastComplete {
            let sample = snapshot[index]
            endNs = max(endNs, sample.presentationTime.nanoseconds + max(sample.duration.nanoseconds, 1))
        }
        var startIndex = oldestKey
        if let seconds {
            let targetNs = endNs - Int64(seconds * 1e9)
            // 1 ms of slack: times in 1/30 s do not convert to whole nanoseconds.
            if let last = keyFrames.last(where: { $0 <= lastComplete && snapshot[$0].presentationTime.nanoseconds <= targetNs + 1_000_000 }) {
                startIndex = last
            }
        }
        let baseNs = snapshot[startIndex].presentationTime.nanoseconds
        var clip: [SampleBuffer] = []
        for (index, sample) in snapshot.enumerated() {
            let pts = sample.presentationTime.nanoseconds
            if sample.type == .video {
                guard index >= startIndex, index <= lastComplete else { continue }
            } else {
                guard pts >= baseNs, pts < endNs else { continue }
            }
            clip.append(sample.shifted(byNanoseconds: baseNs))
        }
        let inside = annotations.filter { $0.time.nanoseconds >= baseNs && $0.time.nanoseconds < endNs }.sorted { $0.time < $1.time }
        let chapters = inside.enumerated().map { index, annotation in
            let start = annotation.time.nanoseconds - baseNs
            let end = index + 1 < inside.count ? inside[index + 1].time.nanoseconds - baseNs : endNs - baseNs
            return MediaChapter(title: annotation.title.isEmpty ? "Chapter \(index + 1)" : annotation.title,
                                start: .nanoseconds(start), end: .nanoseconds(end))
        }
        return ReplayClip(samples: clip, seconds: Double(endNs - baseNs) / 1e9, startSeconds: Double(baseNs) / 1e9, chapters: chapters)
    }
}
