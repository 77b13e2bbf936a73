import RecordKit
import Synchronization

/// Turns timestamped chunks into a gap-free track of fixed 1024-frame blocks of 48 kHz stereo
/// float, one SampleBuffer per block.
///
/// The track is a sample counter: frame *n* plays at *n* / 48000 s of broadcast time. Each chunk
/// is placed by its time against the end of the track so far (E = ``framesWritten`` / 48000 s):
/// - more than 15 ms after E: silence fills the gap, then the chunk follows;
/// - more than 15 ms before E: the leading frames that overlap the track are dropped (the whole
///   chunk if it ends before E);
/// - otherwise the chunk is appended right at E: jitter is absorbed and the track stays
///   contiguous. (Drift between the sound card clock and CLOCK_MONOTONIC is corrected in
///   steps of about 15 ms, by the two rules above.)
/// Frames before broadcast time zero are trimmed.
///
/// Threading: ``append(_:frameCount:broadcastTimeNs:)``, ``fillSilence(untilBroadcastTimeNs:)``
/// and ``finish()`` may be called from any threads. `emit` is called without any lock held,
/// never concurrently with itself, and strictly in track order (startFrame 0, 1024, 2048, …);
/// a block completed by one thread may be emitted by another one that is already emitting, so
/// `emit` may run on any of the calling threads. `emit` may call back into the assembler.
///
/// Memory: blocks come from a recycling pool; each block's `MediaBuffer` returns it to the pool
/// when the last reference goes away, so steady state allocates no sample memory.
package final class AudioTrackAssembler: @unchecked Sendable {
    /// The track's sample rate (the recorder's standard format).
    package static let sampleRate = 48_000
    /// Placement tolerance: chunks within this many frames (15 ms) of the track's end are appended.
    static let toleranceFrames: Int64 = 720
    /// A persistent placement error beyond this many frames (5 ms) is corrected (re-anchoring).
    static let correctionFrames = 240.0
    /// Chunks between two corrections, at least (about half a second of 10 ms chunks).
    static let correctionSpacing = 50

    private static let channels = 2

    private let type: SampleBufferType
    private let blockFrames: Int
    private let emit: @Sendable (SampleBuffer) -> Void
    private let pool: PCMBlockPool
    private let state = Mutex(State())

    /// Everything mutable; only touched inside `state.withLock` (hence `@unchecked Sendable`:
    /// the block pointer is owned by the state and never escapes except into a MediaBuffer).
    private struct State: @unchecked Sendable {
        /// Frames accepted so far, including those in the partial ``block``.
        var framesWritten: Int64 = 0
        /// The block being filled, if any, its first frame and how many frames it holds.
        var block: UnsafeMutablePointer<Float>?
        var blockStart: Int64 = 0
        var blockFill = 0
        /// Completed blocks not yet handed to `emit`, in order.
        var pending: [SampleBuffer] = []
        /// Whether some thread is currently draining ``pending``.
        var emitting = false
        var finished = false
        /// Smoothed placement error in frames: where chunks were written minus where their
        /// timestamps put them. Positive: the track runs late against the clock.
        var offsetFrames = 0.0
        var chunks = 0
        var chunksSinceCorrection = 0
    }

    /// Creates an empty track.
    ///
    /// - Parameters:
    ///   - type: the sample buffer type of every block (`.audioApp` or `.audioMic`).
    ///   - blockFrames: frames per block; every block but the last has exactly this many.
    ///   - emit: receives each completed block; see the type's threading notes.
    package init(type: SampleBufferType, blockFrames: Int = 1024, emit: @escaping @Sendable (SampleBuffer) -> Void) {
        precondition(blockFrames > 0, "AudioTrackAssembler needs a positive block size")
        self.type = type
        self.blockFrames = blockFrames
        self.emit = emit
        self.pool = PCMBlockPool(floatsPerBlock: blockFrames * Self.channels)
    }

    /// Places a chunk of interleaved stereo frames on the track by its time.
    ///
    /// - Parameters:
    ///   - samples: `frameCount` × 2 interleaved L,R floats; only read during the call.
    ///   - frameCount: frames in `samples`.
    ///   - broadcastTimeNs: broadcast time of the chunk's first frame (the caller maps the
    ///     capture clock to the broadcast timeline); may be negative, then the part before zero
    ///     is trimmed.
    /// Ignored after ``finish()``.
    package func append(_ samples: UnsafeBufferPointer<Float>, frameCount: Int, broadcastTimeNs: Int64) {
        var count = min(frameCount, samples.count / Self.channels)
        guard count > 0, let base = samples.baseAddress else { return }
        var source = base
        var start = Self.frames(fromNanoseconds: broadcastTimeNs)
        if start < 0 {
            let skip = Int(min(-start, Int64(count)))
            source += skip * Self.channels
            count -= skip
            start = 0
        }
        guard count > 0 else { return }
        state.withLock { s in
            guard !s.finished else { return }
            let end = s.framesWritten
            let error = Double(end - start)
            s.offsetFrames = s.chunks == 0 ? error : s.offsetFrames * 0.95 + error * 0.05
            s.chunks += 1
            s.chunksSinceCorrection += 1
            // Within the tolerance, jitter is absorbed; a persistent error (the first chunks'
            // timing, or the sound card's clock drifting against CLOCK_MONOTONIC) is corrected
            // once it exceeds 5 ms: drop frames when the track runs late, add silence when early.
            if abs(end - start) <= Self.toleranceFrames, s.chunksSinceCorrection >= Self.correctionSpacing,
               abs(s.offsetFrames) > Self.correctionFrames {
                let correction = Int64(s.offsetFrames.rounded())
                if correction > 0 {
                    let dropped = Int(min(correction, Int64(count)))
                    source += dropped * Self.channels
                    count -= dropped
                } else {
                    write(nil, frames: -correction, into: &s)
                }
                s.offsetFrames -= Double(correction)
                s.chunksSinceCorrection = 0
                if count > 0 { write(source, frames: Int64(count), into: &s) }
                return
            }
            if start - end > Self.toleranceFrames {
                write(nil, frames: start - end, into: &s)
            } else if end - start > Self.toleranceFrames {
                let overlap = Int(min(end - start, Int64(count)))
                source += overlap * Self.channels
                count -= overlap
            }
            if count > 0 { write(source, frames: Int64(count), into: &s) }
        }
        drain()
    }

    /// Appends silence up to `untilBroadcastTimeNs` if the track ends before it.
    ///
    /// A timer calls this while a source delivers nothing (a paused player, a suspended source),
    /// so the timeline never has holes. Chunks that arrive later for the filled span are then
    /// dropped as overlap, so call it with a margin behind real time larger than the source's
    /// latency. Ignored after ``finish()``.
    package func fillSilence(untilBroadcastTimeNs: Int64) {
        let target = Self.frames(fromNanoseconds: untilBroadcastTimeNs)
        state.withLock { s in
            guard !s.finished, target > s.framesWritten else { return }
            write(nil, frames: target - s.framesWritten, into: &s)
        }
        drain()
    }

    /// Ends the track: the remaining frames (if any) go out as a final, shorter block, and later
    /// appends are ignored. Idempotent.
    package func finish() {
        state.withLock { s in
            guard !s.finished else { return }
            s.finished = true
            if let block = s.block, s.blockFill > 0 {
                s.pending.append(sampleBuffer(block, frames: s.blockFill, start: s.blockStart))
                s.block = nil
            } else if let block = s.block {
                pool.release(UInt(bitPattern: block))
                s.block = nil
            }
        }
        drain()
    }

    /// The track's smoothed placement error in nanoseconds: where its chunks were written minus
    /// where their capture timestamps put them (positive: audio late against the video clock).
    package var offsetNs: Int64 {
        state.withLock { Int64($0.offsetFrames * 1e9 / Double(Self.sampleRate)) }
    }

    /// Frames placed on the track so far (emitted or waiting in the partial block).
    package var framesWritten: Int64 { state.withLock { $0.framesWritten } }

    deinit {
        if let block = state.withLock({ $0.block }) { pool.release(UInt(bitPattern: block)) }
    }

    // MARK: - Private

    /// Broadcast nanoseconds to a frame index, rounded to the nearest frame.
    static func frames(fromNanoseconds ns: Int64) -> Int64 {
        let (seconds, rest) = ns.quotientAndRemainder(dividingBy: 1_000_000_000)
        let half: Int64 = rest >= 0 ? 500_000_000 : -500_000_000
        return seconds * Int64(sampleRate) + (rest * Int64(sampleRate) + half) / 1_000_000_000
    }

    /// Appends `frames` frames from `source` (silence when nil), completing blocks into `pending`.
    private func write(_ source: UnsafePointer<Float>?, frames: Int64, into s: inout State) {
        var remaining = frames
        var source = source
        while remaining > 0 {
            let block: UnsafeMutablePointer<Float>
            if let current = s.block {
                block = current
            } else {
                block = pool.acquire()
                s.block = block
                s.blockStart = s.framesWritten
                s.blockFill = 0
            }
            let n = Int(min(remaining, Int64(blockFrames - s.blockFill)))
            let destination = block + s.blockFill * Self.channels
            if let from = source {
                destination.update(from: from, count: n * Self.channels)
                source = from + n * Self.channels
            } else {
                destination.update(repeating: 0, count: n * Self.channels)
            }
            s.blockFill += n
            s.framesWritten += Int64(n)
            remaining -= Int64(n)
            if s.blockFill == blockFrames {
                s.pending.append(sampleBuffer(block, frames: blockFrames, start: s.blockStart))
                s.block = nil
            }
        }
    }

    private func sampleBuffer(_ block: UnsafeMutablePointer<Float>, frames: Int, start: Int64) -> SampleBuffer {
        let buffer = pool.mediaBuffer(for: block, floats: frames * Self.channels)
        return SampleBuffer(
            type: type,
            presentationTime: MediaTime(value: start, timescale: Int32(Self.sampleRate)),
            duration: MediaTime(value: Int64(frames), timescale: Int32(Self.sampleRate)),
            formatDescription: .audio(.standard),
            payload: .pcm(PCMData(buffer: buffer, frameCount: frames, startFrame: start)))
    }

    /// Hands pending blocks to `emit` in order, outside the lock, one draining thread at a time.
    private func drain() {
        let mine = state.withLock { s -> Bool in
            if s.emitting || s.pending.isEmpty { return false }
            s.emitting = true
            return true
        }
        guard mine else { return }
        while true {
            let batch = state.withLock { s -> [SampleBuffer] in
                if s.pending.isEmpty {
                    s.emitting = false
                    return []
                }
                var out: [SampleBuffer] = []
                swap(&out, &s.pending)
                return out
            }
            if batch.isEmpty { return }
            for block in batch { emit(block) }
        }
    }
}
