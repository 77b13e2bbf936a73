import Glibc
import RecordKit
import RecordKitMedia

/// Writes a ``ReplayClip`` to a plain MP4, through a hidden temporary file beside the
/// destination, `fsync` and `rename`, so the destination is complete or absent. The index goes
/// at the end, as libavformat writes it: the clip's media is written once (with `+faststart` it
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
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        if fd >= 0 { _ = fsync(fd); close(fd) }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw BroadcastError(.outputFailed, "saving the replay to \(path) failed: renaming \(temporary): \(reason)")
        }
    }

    /// `Replay 2025-05-01 at 14.03.22.mp4` in `directory` (local time), with ` (2)`, ` (3)`, …
    /// when that name is taken.
    static func defaultPath(in directory: String) -> String {
        var seconds = time(nil)
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let stem = "\(directory)/Replay \(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) at "
            + "\(two(parts.tm_hour)).\(two(parts.tm_min)).\(two(parts.tm_sec))"
        var candidate = stem + ".mp4"
        var n = 2
        var info = stat()
        while stat(candidate, &info) == 0 {
            candidate = stem + " (\(n)).mp4"
            n += 1
        }
        return candidate
    }

    /// The videos directory: `$XDG_VIDEOS_DIR` when absolute, else `$HOME/Videos`.
    static func videosDirectory() -> String {
        if let value = getenv("XDG_VIDEOS_DIR").map({ String(cString: $0) }), value.hasPrefix("/") { return value }
        let home = getenv("HOME").map { String(cString: $0) } ?? "/"
        return (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/Videos"
    }
}
