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
    /// The video streams (the screen's, the camera track's) that began, each at its first key frame.
    private var startedVideo: Set<SampleBufferType> = []
    /// Whether the screen's video began (at its first key frame).
    var videoStarted: Bool { startedVideo.contains(.video) }
    /// Whether any packet was written.
    private(set) var hasMedia = false
    /// An MP4's fragments read as they are written (once a second), so finalizing reads only the
    /// last ones (stop in constant time); nil for Matroska, or after a read failed (finalizing then reads all).
    private(set) var scanner: MP4FragmentScanner?

    /// Whether video packets wait for the next one (MP4; see ``write(_:)``).
    private var holdsVideo = false
    /// Matroska, per video stream: the packet presented latest so far and those after it in
    /// decode order, held until a later picture comes, so that ``finish()`` can still give that
    /// packet the duration that ends the track at ``videoEndNs`` (see ``write(_:)``).
    private var latestVideoRun: [SampleBufferType: [SampleBuffer]] = [:]
    /// Per video stream, the packet waiting for the next one's decode time.
    private var heldVideo: [SampleBufferType: SampleBuffer] = [:]
    /// Per video stream, the latest presentation time of a packet taken (the held one included).
    private var latestVideoPresentation: [SampleBufferType: MediaTime] = [:]
    /// Where the video ends on the file's timeline (nanoseconds), when something after the
    /// file's last picture decides it: a split part's cut, the next part's first picture.
    /// ``finish()`` gives the held last packet the duration that ends the video there (MP4).
    /// (Matroska: the packet presented latest gets it.) Set before ``finish()``; nil: the last
    /// packet keeps its own duration (one frame).
    var videoEndNs: Int64?
    /// The streams that have had a packet: a fragment is forced out only once every track has
    /// one (before that, libavformat's first fragment would carry an index without their start).
    private var streamsWithMedia: Set<SampleBufferType> = []

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
            // max_interleave_delta: audio waits at most half a second for video in the
            // interleaving queue (libavformat's default is 10 s): with x264's look-ahead a still
            // screen's video comes in bursts up to a key frame interval apart, and audio held
            // behind them was lost with them by a kill -9. Each track stays in decode
            // order and keeps its own times (see write(_:)).
            options = ["movflags": "+frag_keyframe+delay_moov+default_base_moof",
                       "frag_duration": "1000000", "flush_packets": "1", "max_interleave_delta": "500000"]
            holdsVideo = true
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
    ///
    /// MP4: each video packet is written when the next one arrives, with its duration set to
    /// the step to the next one's decode time (the last one at ``finish()``, with its own). A
    /// fragmented MP4 has no decode times of its own: each fragment's start is the previous
    /// fragment's end, so every sample's duration must be right when its fragment is cut.
    /// libavformat reads it from the next packet in its interleaving queue when there is one;
    /// with x264's look-ahead drained in bursts on a still screen (``VideoEncodeStage``) there
    /// often is none, and a packet's own duration (one frame) would shift every later picture.
    /// Right durations let the file be cut anywhere: audio waits at most half a second for
    /// video (`max_interleave_delta`), and when a key frame arrives, everything before it is
    /// pushed to the file at once (the end of a drained burst), so a kill -9 keeps the video up
    /// to the latest key frame and the audio up to about a second ago.
    func write(_ sample: SampleBuffer) throws(BroadcastError) {
        guard muxer != nil, let index = streamIndex[sample.type], case .packet(let packet) = sample.payload else { return }
        let isVideo = sample.type == .video || sample.type == .camera
        if isVideo, !startedVideo.contains(sample.type) {
            guard packet.isKeyFrame else { return }
            startedVideo.insert(sample.type)
        }
        if isVideo, !holdsVideo {
            try holdLatest(sample, toStream: index)
            return
        }
        guard holdsVideo, isVideo else {
            try pass(sample, toStream: index)
            return
        }
        let previous = heldVideo[sample.type]
        heldVideo[sample.type] = sample
        hasMedia = true
        if latestVideoPresentation[sample.type].map({ $0 < sample.presentationTime }) ?? true {
            latestVideoPresentation[sample.type] = sample.presentationTime
        }
        guard let previous, case .packet(let earlier) = previous.payload else { return }
        let step = packet.decodeTime.converted(to: earlier.decodeTime.timescale).value - earlier.decodeTime.value
        let timed = step > 0 ? previous.replacing(duration: MediaTime(value: step, timescale: earlier.decodeTime.timescale)) : previous
        try pass(timed, toStream: index)
        if packet.isKeyFrame, sample.type == .video, streamsWithMedia.count == streamIndex.count {
            do throws(MediaError) { try muxer?.flushBuffered() } catch {
                throw BroadcastError(.outputFailed, "writing \(displayPath) failed: \(error.reason ?? error.message)")
            }
        }
    }

    /// Matroska: a block's time is its own, and only the track's end depends on a duration: the
    /// latest picture's end (libavformat's track `DURATION` and the segment's duration are the
    /// largest presentation time plus duration it was given). So each video packet is written
    /// as it is, except that the packet presented latest so far waits, with the packets after it
    /// in decode order (B-frames: at most x264's reorder depth), until a later picture arrives;
    /// ``finish()`` then gives the last such packet the step to the end. Without that the
    /// track ended one frame after its last picture, not at the cut.
    private func holdLatest(_ sample: SampleBuffer, toStream index: Int) throws(BroadcastError) {
        var run = latestVideoRun[sample.type] ?? []
        if let latest = run.first, latest.presentationTime < sample.presentationTime {
            for held in run { try pass(held, toStream: index) }
            run = []
        }
        run.append(sample)
        hasMedia = true
        latestVideoRun[sample.type] = run
    }

    /// Hands `sample` to the muxer; `fsync`s and scans the file once a second.
    private func pass(_ sample: SampleBuffer, toStream index: Int) throws(BroadcastError) {
        guard let muxer else { return }
        do {
            try muxer.write(sample, toStream: index)
        } catch {
            throw BroadcastError(.outputFailed, "writing \(displayPath) failed: \(error.reason ?? error.message)")
        }
        hasMedia = true
        streamsWithMedia.insert(sample.type)
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
        var heldError: BroadcastError?
        for (type, run) in latestVideoRun.sorted(by: { $0.key.rawValue > $1.key.rawValue }) {
            guard let index = streamIndex[type], let latest = run.first else { continue }
            do throws(BroadcastError) {
                try pass(Self.ending(latest, latest: latest.presentationTime, atNs: videoEndNs), toStream: index)
                for held in run.dropFirst() { try pass(held, toStream: index) }
            } catch {
                heldError = heldError ?? error
            }
        }
        latestVideoRun = [:]
        for (type, last) in heldVideo.sorted(by: { $0.key.rawValue > $1.key.rawValue }) {
            guard let index = streamIndex[type] else { continue }
            do throws(BroadcastError) {
                try pass(Self.ending(last, latest: latestVideoPresentation[type], atNs: videoEndNs), toStream: index)
            } catch {
                heldError = heldError ?? error
            }
        }
        heldVideo = [:]
        guard let muxer else {
            if let heldError { throw heldError }
            return
        }
        self.muxer = nil
        do {
            try muxer.finish()
        } catch {
            throw BroadcastError(.outputFailed, "finishing \(displayPath) failed: \(error.reason ?? error.message)")
        }
        if syncFD >= 0 { _ = fsync(syncFD) }
        if let heldError { throw heldError }
    }

    /// `last` (the last video packet in decode order) with the duration that makes the video
    /// end at `endNs`: a fragmented MP4's track ends at its latest presentation time plus the
    /// duration of its last packet in decode order (``MP4TrackTable/presentationEnd``), so
    /// that duration is the step from the latest picture (`latest`) to the end, in the packet's
    /// timescale. Without an end, or when the end is not after the latest picture, `last` as it is.
    static func ending(_ last: SampleBuffer, latest: MediaTime?, atNs endNs: Int64?) -> SampleBuffer {
        guard let endNs, let latest, case .packet(let packet) = last.payload else { return last }
        let scale = packet.decodeTime.timescale
        let step = MediaTime.nanoseconds(endNs).converted(to: scale).value - latest.converted(to: scale).value
        guard step > 0 else { return last }
        return last.replacing(duration: MediaTime(value: step, timescale: scale))
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
