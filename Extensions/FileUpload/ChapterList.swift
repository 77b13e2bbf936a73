import RecordKit
import RecordKitMedia

/// The markers of a recording (``BroadcastSampleHandler/broadcastAnnotated(_:)``) as the
/// chapters a file gets: each from its marker's time to the next marker, the last to the end of
/// the media written. Untitled markers are named "Chapter N". A marker at the very start makes
/// the first chapter start there; otherwise the part before the first marker has no chapter.
struct ChapterList {
    private var annotations: [BroadcastAnnotation] = []
    private var endNs: Int64 = 0

    /// Whether any marker was added.
    var isEmpty: Bool { annotations.isEmpty }

    /// Adds a marker.
    mutating func add(_ annotation: BroadcastAnnotation) { annotations.append(annotation) }

    /// Notes how far the media goes (the end of `sample`).
    mutating func observe(_ sample: SampleBuffer) {
        endNs = max(endNs, sample.presentationTime.nanoseconds + sample.duration.nanoseconds)
    }

    /// The chapters, in time order, on a timeline that starts at `originNs` of broadcast time.
    func chapters(from originNs: Int64 = 0) -> [MediaChapter] {
        let sorted = annotations.sorted { $0.time < $1.time }
        return sorted.enumerated().map { index, annotation in
            let start = max(0, annotation.time.nanoseconds - originNs)
            let next = index + 1 < sorted.count ? sorted[index + 1].time.nanoseconds - originNs : endNs - originNs
            let title = annotation.title.isEmpty ? "Chapter \(index + 1)" : annotation.title
            return MediaChapter(title: title, start: .nanoseconds(start), end: .nanoseconds(max(start, next)))
        }
    }
}
