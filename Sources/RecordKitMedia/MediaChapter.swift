import CFFmpeg
import RecordKit

/// One chapter of a container: a title over a span of the file's timeline.
package struct MediaChapter: Sendable, Hashable {
    /// The chapter's title.
    package var title: String
    /// Where it starts, on the file's timeline.
    package var start: MediaTime
    /// Where it ends (the next chapter's start, or the end of the file).
    package var end: MediaTime

    /// Creates a chapter.
    package init(title: String, start: MediaTime, end: MediaTime) {
        self.title = title
        self.start = start
        self.end = end
    }
}

extension [MediaChapter] {
    /// These chapters as an MP4 can carry them: libavformat writes MP4 chapters as a QuickTime
    /// chapter track, which covers the file from zero (a first chapter that starts later is
    /// read back as starting at zero). So when the first chapter starts after zero, a chapter
    /// titled `title` covers the part before it.
    package func coveringFromZero(title: String = "Start") -> [MediaChapter] {
        guard let first = self.first, first.start.nanoseconds > 0 else { return self }
        return [MediaChapter(title: title, start: .zero, end: first.start)] + self
    }
}

/// Reads and writes the chapter table of a libavformat context (times in milliseconds).
/// libavformat frees the table with the context (`avformat_free_context`).
enum ChapterTable {
    /// Appends `chapters` to `context`'s table. Call it after the header: MP4 then writes them
    /// as the Nero `chpl` list with its index (chapters known before the header would also get a
    /// QuickTime chapter track, whose first chapter always starts at zero); Matroska writes
    /// chapters added any time before the trailer.
    static func append(_ chapters: [MediaChapter], to context: UnsafeMutablePointer<AVFormatContext>) throws(MediaError) {
        guard !chapters.isEmpty else { return }
        let old = Int(context.pointee.nb_chapters)
        let count = old + chapters.count
        guard let raw = av_realloc_array(context.pointee.chapters, count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride) else {
            throw MediaError("adding \(chapters.count) chapters", code: shim_averror(ENOMEM))
        }
        let table = raw.assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self)
        context.pointee.chapters = table
        for (offset, chapter) in chapters.enumerated() {
            guard let memory = av_mallocz(MemoryLayout<AVChapter>.stride) else {
                throw MediaError("adding a chapter", code: shim_averror(ENOMEM))
            }
            let entry = memory.assumingMemoryBound(to: AVChapter.self)
            entry.pointee.id = Int64(old + offset + 1)
            entry.pointee.time_base = AVRational(num: 1, den: 1000)
            entry.pointee.start = chapter.start.nanoseconds / 1_000_000
            entry.pointee.end = max(chapter.end.nanoseconds / 1_000_000, entry.pointee.start)
            av_dict_set(&entry.pointee.metadata, "title", chapter.title, 0)
            table[old + offset] = entry
            context.pointee.nb_chapters = UInt32(old + offset + 1)
        }
    }

    /// The chapters of an opened input.
    static func read(_ context: UnsafeMutablePointer<AVFormatContext>) -> [MediaChapter] {
        (0..<Int(context.pointee.nb_chapters)).compactMap { index in
            guard let entry = context.pointee.chapters[index] else { return nil }
            let base = entry.pointee.time_base
            func time(_ value: Int64) -> MediaTime {
                MediaTime.nanoseconds(av_rescale_q(value, base, AVRational(num: 1, den: 1_000_000_000)))
            }
            let title = av_dict_get(entry.pointee.metadata, "title", nil, 0).map { String(cString: $0.pointee.value) } ?? ""
            return MediaChapter(title: title, start: time(entry.pointee.start), end: time(entry.pointee.end))
        }
    }
}
