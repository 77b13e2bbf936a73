/// Sums several timestamped streams of one track into one stream of chunks: the sink inputs of
/// one application (`--app-audio-from`), which may play two streams at once (a browser with two
/// tabs, a game's music and its effects).
///
/// Every stream is placed on one frame axis by its capture times (48 kHz stereo float; frame 0 is
/// the first chunk of any stream). As the track assembler does, a chunk that starts within 15 ms
/// of where its stream ended is appended right there (jitter absorbed); further away, it is placed
/// by its time. Samples are added into a one-second ring, and the frames every active stream has
/// reached are handed on as one chunk with their capture time: with a single stream, each chunk
/// goes out as it comes (no delay); with two, the output follows the later of them. A stream that
/// has delivered nothing for ``idleNs`` stops holding the others back (a paused or corked stream);
/// its samples for frames already handed on are dropped. A stream announced with
/// ``expectStream(_:nowNs:)`` holds the output from the start (up to ``idleNs``) until its first
/// chunk comes, so streams opened together start together. A stream that ends is forgotten.
///
/// Not thread-safe: call from one thread (the PulseAudio loop thread). `output` is called
/// synchronously from ``deliver(stream:samples:frameCount:captureTimeNs:nowNs:)`` and
/// ``streamEnded(_:nowNs:)``, with samples valid only during the call.
final class StreamSummer {
    /// Receives summed chunks: interleaved stereo samples, frame count, capture time of the first.
    typealias Output = (_ samples: UnsafeBufferPointer<Float>, _ frameCount: Int, _ captureTimeNs: UInt64) -> Void

    static let sampleRate: Int64 = 48_000
    private static let channels = 2
    /// Chunks within this many frames (15 ms) of their stream's end are appended at the end.
    static let toleranceFrames: Int64 = 720
    /// A stream silent this long no longer holds the output back (150 ms).
    static let idleNs: UInt64 = 150_000_000
    /// Frames the ring holds (one second): how far one stream can run ahead of another.
    static let capacity: Int64 = 48_000

    private let output: Output
    private var ring: [Float]
    /// Capture time of frame 0, once the first chunk came.
    private var originNs: UInt64?
    /// Everything before this frame has been handed on.
    private var emitted: Int64 = 0
    /// Per stream: where its next chunk is expected (nil before its first), when it last delivered.
    private var streams: [UInt32: (end: Int64?, lastSeenNs: UInt64)] = [:]

    /// A summer that hands summed chunks to `output`.
    init(output: @escaping Output) {
        self.output = output
        ring = [Float](repeating: 0, count: Int(Self.capacity) * Self.channels)
    }

    /// Adds one chunk of stream `stream` (`frameCount` interleaved stereo frames captured from
    /// `captureTimeNs` on) and hands on what every active stream has reached.
    func deliver(stream: UInt32, samples: UnsafeBufferPointer<Float>, frameCount: Int, captureTimeNs: UInt64, nowNs: UInt64) {
        let count = min(frameCount, samples.count / Self.channels)
        guard count > 0 else { return }
        let origin = originNs ?? captureTimeNs
        originNs = origin
        let timed = captureTimeNs >= origin
            ? Int64((captureTimeNs - origin) * UInt64(Self.sampleRate) / 1_000_000_000)
            : -Int64((origin - captureTimeNs) * UInt64(Self.sampleRate) / 1_000_000_000)
        var start = timed
        if let end = streams[stream]?.end, abs(timed - end) <= Self.toleranceFrames { start = end }
        // A stream that ran a whole ring ahead of the others: hand on what is in the way.
        if start + Int64(count) - emitted > Self.capacity { emit(upTo: start + Int64(count) - Self.capacity) }
        // Frames already handed on are dropped.
        let skip = Int(max(0, min(Int64(count), emitted - start)))
        for i in skip..<count {
            let slot = Int((start + Int64(i)) % Self.capacity) * Self.channels
            ring[slot] += samples[i * Self.channels]
            ring[slot + 1] += samples[i * Self.channels + 1]
        }
        streams[stream] = (start + Int64(count), nowNs)
        emitReached(nowNs: nowNs)
    }

    /// Announces `stream` (just opened): it holds the output back until its first chunk, or until
    /// it has been silent for ``idleNs``. Does nothing for a stream already known.
    func expectStream(_ stream: UInt32, nowNs: UInt64) {
        if streams[stream] == nil { streams[stream] = (nil, nowNs) }
    }

    /// Forgets `stream` (its sink input went away) and hands on what the others have reached.
    func streamEnded(_ stream: UInt32, nowNs: UInt64) {
        guard streams.removeValue(forKey: stream) != nil else { return }
        emitReached(nowNs: nowNs)
    }

    /// Number of streams delivering now.
    var streamCount: Int { streams.count }

    // MARK: - Private

    /// Hands on frames up to the earliest end among the active streams (or the latest end if
    /// every stream is idle).
    private func emitReached(nowNs: UInt64) {
        // One pass, no allocation: called for every chunk of every stream.
        var activeMin: Int64?
        var latestEnd: Int64?
        for stream in streams.values {
            if let end = stream.end { latestEnd = max(latestEnd ?? end, end) }
            if nowNs &- stream.lastSeenNs < Self.idleNs {
                let reached = stream.end ?? emitted
                activeMin = min(activeMin ?? reached, reached)
            }
        }
        emit(upTo: activeMin ?? latestEnd ?? emitted)
    }

    /// Hands on frames `emitted..<frontier` (at most a ring) in at most two contiguous pieces,
    /// clearing them for reuse.
    private func emit(upTo frontier: Int64) {
        guard let origin = originNs, frontier > emitted else { return }
        let end = min(frontier, emitted + Self.capacity)
        while emitted < end {
            let slot = emitted % Self.capacity
            let frames = Int(min(end - emitted, Self.capacity - slot))
            let first = Int(slot) * Self.channels, floats = frames * Self.channels
            let timeNs = emitted >= 0
                ? origin + UInt64(emitted) * 1_000_000_000 / UInt64(Self.sampleRate)
                : origin - UInt64(-emitted) * 1_000_000_000 / UInt64(Self.sampleRate)
            ring.withUnsafeMutableBufferPointer { buffer in
                output(UnsafeBufferPointer(rebasing: buffer[first..<(first + floats)]), frames, timeNs)
                buffer[first..<(first + floats)].update(repeating: 0)
            }
            emitted += Int64(frames)
        }
        if frontier > end { emitted = frontier }
    }
}
