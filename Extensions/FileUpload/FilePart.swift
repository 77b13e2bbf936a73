import RecordKit
import RecordKitMedia

/// One file of a recording: the whole recording, or one part of a split one. A part has its
/// own writer and its own time zero (the presentation time of its first key frame in the
/// broadcast), its markers, and, once a split closed it, the cut: audio from before the cut
/// still goes into it, so each audio track splits at the same instant as the video, to within
/// one audio frame, no sample lost or doubled.
///
/// Ownership: the handler's, on its serial queue, until the part is handed to the finalizer
/// queue, which then owns it alone (hence `@unchecked Sendable`).
final class FilePart: @unchecked Sendable {
    /// 1 for the first part.
    let number: Int
    let writer: FileWriter
    /// Broadcast time (nanoseconds) subtracted from every sample: 0 for the first part, the
    /// cut for the others, so each part's timestamps start at zero.
    let originNs: Int64
    /// Its markers; chapters on the part's own timeline.
    var chapters = ChapterList()
    /// Encoded bytes written (for `--split-size`).
    private(set) var bytes: Int64 = 0
    /// Video frames written.
    private(set) var videoFrames = 0
    /// The recovery note of this part in the working directory (nil without one).
    var noteName: String?
    /// Set when a split closed the part: the broadcast time at which the next part starts.
    var cutNs: Int64?
    /// Audio tracks whose samples from before ``cutNs`` may still come.
    var awaitingAudio: Set<SampleBufferType> = []
    /// Who asked for the split that closed this part (`recordctl split`): answered once the
    /// part is finalized.
    var completions: [@Sendable (Result<[String: String], BroadcastError>) -> Void] = []

    init(number: Int, writer: FileWriter, originNs: Int64) {
        self.number = number
        self.writer = writer
        self.originNs = originNs
    }

    /// Writes `sample` re-timed to the part's zero.
    func write(_ sample: SampleBuffer) throws(BroadcastError) {
        try writer.write(sample.shifted(byNanoseconds: originNs))
        if case .packet(let packet) = sample.payload { bytes += Int64(packet.data.count) }
        if sample.type == .video, writer.videoStarted { videoFrames += 1 }
        chapters.observe(sample)
    }

    /// The part's chapters on its own timeline.
    var mediaChapters: [MediaChapter] { chapters.chapters(from: originNs) }

    /// The markers for the recovery note.
    var noteMarkers: [RecoveryNote.Marker] {
        mediaChapters.map { RecoveryNote.Marker(title: $0.title, startNs: $0.start.nanoseconds) }
    }
}
