import Glibc
import RecordKit
import RecordKitMedia
import RecordKitSupport

/// Writes a ``ReplayClip`` to a plain MP4, through a hidden temporary file beside the
/// destination that `AtomicFile` publishes (`fsync`, `rename`, the directory `fsync`ed), so the
/// destination is complete or absent. The index goes at the end, as libavformat writes it: the clip's media is written once (with `+faststart` it
/// would be written a second time to move the index first).
enum ReplayClipWriter {
    /// Writes `clip` with `streams` (in file order) to `path`. Throws
    /// ``BroadcastError/Kind/outputFailed`` with what failed; nothing is left behind then.
    static func write(_ clip: ReplayClip, streams: [(SampleBufferType, EncodedFormat)], to path: String) throws(BroadcastError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = (directory.isEmpty ? "" : directory) + "/." + name + ".saving.mp4"
        let index = Dictionary(uniqueKeysWithValues: streams.enumerated().map { ($1.0, $0) })
        do throws(MediaError) {
            let muxer = try Muxer(url: temporary, container: "mp4", streams: streams.map(\.1), chapters: clip.chapters.coveringFromZero(),
                                  options: [:])
            do throws(MediaError) {
                for sample in clip.samples {
                    guard let stream = index[sample.type] else { continue }
                    try muxer.write(sample, toStream: stream)
                }
                try muxer.finish()
            } catch {
                muxer.abort()
                throw error
            }
        } catch {
            unlink(temporary)
            throw BroadcastError(.outputFailed, "saving the replay to \(path) failed: \(error.reason ?? error.message)")
        }
        do throws(FileSystemError) {
            try AtomicFile.publish(temporary: temporary, as: path, replacing: true)
        } catch {
            unlink(temporary)
            throw BroadcastError(.outputFailed, "saving the replay to \(path) failed: \(error)")
        }
    }

    /// `Replay 2025-05-01 at 14.03.22.mp4` in `directory` (local time), with ` (2)`, ` (3)`, …
    /// when that name is taken.
    static func defaultPath(in directory: String) -> String {
        OutputFileName.unused("Replay", in: directory, at: time(nil), extension: "mp4")
    }
}
