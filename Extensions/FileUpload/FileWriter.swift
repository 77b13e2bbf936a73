import Glibc
import RecordKit
import RecordKitMedia
import RecordKitSupport

/// One open container file: the muxer, the stream order, the start at a key frame, and the
/// once-a-second `fsync` that bounds what a power cut can take.
final class FileWriter {
    /// Where the bytes go (the working file, or the destination itself).
    let path: String
    private let displayPath: String
    private var muxer: Muxer?
    private let streamIndex: [SampleBufferType: Int]
    private let syncFD: Int32
    private var lastSyncNs: UInt64
    /// Whether video began (at its first key frame).
    private(set) var videoStarted = false
    /// Whether any packet was written.
    private(set) var hasMedia = false
    /// An MP4's fragments read as they are written (once a second), so finalizing reads only the
    /// last ones (stop in constant time); nil for Matroska, or after a read failed (finalizing then reads all).
    private(set) var scanner: MP4FragmentScanner?

    /// How often written data is forced to disk.
    static let syncIntervalNs: UInt64 = 1_000_000_000

    /// Opens `path` as `container` with `streams` in this order; `displayPath` names the file
    /// in messages (the destination, not the working file).
    init(path: String, container: FileOutputOptions.Container, streams: [(SampleBufferType, EncodedFormat)], displayPath: String) throws(BroadcastError) {
        self.path = path
        self.displayPath = displayPath
        let containerName: String
        let options: [String: String]
        switch container {
        case .mp4:
            containerName = "mp4"
            scanner = MP4FragmentScanner()
            // Fragments at each key frame and at least every second, flushed as written, so the
            // file always plays up to its last complete fragment. delay_moov writes the index with
            // the first fragment, once every track's first timestamp is known, so it can carry
            // edit lists: B-frame delay and the AAC priming are trimmed exactly (empty_moov
            // instead would stretch the first audio packet and start video late).
            options = ["movflags": "+frag_keyframe+delay_moov+default_base_moof",
                       "frag_duration": "1000000", "flush_packets": "1"]
        case .mkv:
            containerName = "matroska"
            options = ["cluster_time_limit": "1000", "flush_packets": "1"]
        }
        do {
            muxer = try Muxer(url: path, container: containerName, streams: streams.map(\.1), options: options)
        } catch {
            throw BroadcastError(.outputFailed, "opening \(displayPath) failed: \(error.reason ?? error.message)")
        }
        streamIndex = Dictionary(uniqueKeysWithValues: streams.enumerated().map { ($1.0, $0) })
        syncFD = open(path, O_RDONLY | O_CLOEXEC)
        lastSyncNs = MonotonicClock.nanoseconds()
    }

    deinit { if syncFD >= 0 { close(syncFD) } }

    /// Writes one encoded packet of a stream the file carries; others are ignored. Video
    /// before the first key frame is skipped (a file must start where a decoder can).
    func write(_ sample: SampleBuffer) throws(BroadcastError) {
        guard let muxer, let index = streamIndex[sample.type], case .packet(let packet) = sample.payload else { return }
        if sample.type == .video, !videoStarted {
            guard packet.isKeyFrame else { return }
            videoStarted = true
        }
        do {
            try muxer.write(sample, toStream: index)
        } catch {
            throw BroadcastError(.outputFailed, "writing \(displayPath) failed: \(error.reason ?? error.message)")
        }
        hasMedia = true
        let now = MonotonicClock.nanoseconds()
        if now - lastSyncNs >= Self.syncIntervalNs {
            lastSyncNs = now
            if syncFD >= 0, fsync(syncFD) != 0 {
                throw BroadcastError(.outputFailed, "writing \(displayPath) failed: \(SystemError.current)")
            }
            if let scanner, syncFD >= 0 {
                do throws(MediaError) { try scanner.advance(fd: syncFD, path: path, final: false) } catch { self.scanner = nil }
            }
        }
    }

    /// Adds chapters, written with the trailer (Matroska); a failure only loses the chapters.
    func addChapters(_ chapters: [MediaChapter]) {
        try? muxer?.addChapters(chapters)
    }

    /// Writes the trailer and closes the file.
    func finish() throws(BroadcastError) {
        guard let muxer else { return }
        self.muxer = nil
        do {
            try muxer.finish()
        } catch {
            throw BroadcastError(.outputFailed, "finishing \(displayPath) failed: \(error.reason ?? error.message)")
        }
        if syncFD >= 0 { _ = fsync(syncFD) }
    }

    /// Closes the file and deletes it.
    func abort() {
        muxer?.abort()
        muxer = nil
        unlink(path)
    }

    /// The size of the file at `path` in bytes (0 when it is missing).
    static func size(of path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

}
