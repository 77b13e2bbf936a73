import RecordKit

/// Mixes the app and mic tracks into one `.audioMixed` track, for outputs that carry a single
/// audio track (FLV/RTMP).
///
/// Feed it the blocks of both ``AudioTrackAssembler``s (same block size, so their startFrames
/// line up). When both tracks have delivered the block at a startFrame, it emits their sum,
/// clipped to [-1, 1], as one `.audioMixed` block with the same startFrame and timing. A block
/// whose partner can no longer come (the other track has already moved past its startFrame) goes
/// out alone, unchanged except for its type and without copying; so do the blocks still waiting
/// at ``finish()``. Output blocks are in increasing startFrame order.
///
/// Memory: mixed blocks come from a recycling pool. At most one track's blocks wait at a time,
/// as many as that track is ahead of the other.
///
/// Not thread-safe: call ``add(_:)`` and ``finish()`` from one thread (or serial queue) at a
/// time. `emit` is called synchronously from those calls.
package final class PCMMixer {
    private let emit: (SampleBuffer) -> Void
    /// Blocks of ``waitingType`` whose partner has not arrived yet, oldest first.
    private var waiting: [SampleBuffer] = []
    private var waitingType: SampleBufferType?
    private var pool: PCMBlockPool?
    private var finished = false

    /// Creates a mixer that hands each mixed block to `emit`.
    package init(emit: @escaping (SampleBuffer) -> Void) {
        self.emit = emit
    }

    /// Adds one block of the `.audioApp` or `.audioMic` track (any other type, non-PCM payloads
    /// and blocks after ``finish()`` are ignored). Blocks of each track must come in order.
    package func add(_ block: SampleBuffer) {
        guard !finished, block.type == .audioApp || block.type == .audioMic, let start = Self.startFrame(of: block) else { return }
        if waiting.isEmpty || waitingType == block.type {
            waiting.append(block)
            waitingType = block.type
            return
        }
        // The other track is waiting. Its blocks before `start` can no longer be matched.
        var matched = 0
        while matched < waiting.count, let other = Self.startFrame(of: waiting[matched]), other < start {
            emit(Self.alone(waiting[matched]))
            matched += 1
        }
        if matched < waiting.count, Self.startFrame(of: waiting[matched]) == start {
            emit(mix(waiting[matched], block))
            matched += 1
            waiting.removeFirst(matched)
        } else if matched < waiting.count {
            // The other track is already past `start`: this block has no partner.
            waiting.removeFirst(matched)
            emit(Self.alone(block))
        } else {
            waiting.removeAll(keepingCapacity: true)
            waiting.append(block)
            waitingType = block.type
        }
    }

    /// Emits every block still waiting for a partner, alone, and ignores later blocks. Idempotent.
    package func finish() {
        guard !finished else { return }
        finished = true
        for block in waiting { emit(Self.alone(block)) }
        waiting.removeAll()
    }

    // MARK: - Private

    private static func startFrame(of block: SampleBuffer) -> Int64? {
        if case .pcm(let pcm) = block.payload { return pcm.startFrame }
        return nil
    }

    /// `block` retyped as `.audioMixed`, sharing its memory.
    private static func alone(_ block: SampleBuffer) -> SampleBuffer {
        block.replacing(type: .audioMixed)
    }

    /// The clipped sum of two blocks with the same startFrame; as long as the longer one.
    private func mix(_ a: SampleBuffer, _ b: SampleBuffer) -> SampleBuffer {
        guard case .pcm(let pa) = a.payload, case .pcm(let pb) = b.payload else { return Self.alone(a) }
        let channels = AudioFormat.standard.channels
        let frames = max(pa.frameCount, pb.frameCount)
        let floats = frames * channels
        let blockPool: PCMBlockPool
        if let pool, pool.floatsPerBlock >= floats {
            blockPool = pool
        } else {
            blockPool = PCMBlockPool(floatsPerBlock: floats, maxFree: 16)
            pool = blockPool
        }
        let out = blockPool.acquire()
        out.update(repeating: 0, count: floats)
        Self.accumulate(pa.buffer.bytes, floats: pa.frameCount * channels, into: out)
        Self.accumulate(pb.buffer.bytes, floats: pb.frameCount * channels, into: out)
        for i in 0..<floats { out[i] = min(max(out[i], -1), 1) }
        let longer = pa.frameCount >= pb.frameCount ? a : b
        return SampleBuffer(
            type: .audioMixed, presentationTime: longer.presentationTime, duration: longer.duration,
            formatDescription: .audio(.standard),
            payload: .pcm(PCMData(buffer: blockPool.mediaBuffer(for: out, floats: floats), frameCount: frames,
                                  startFrame: pa.startFrame)))
    }

    /// Adds `floats` samples from `bytes` (native-endian Float32, any alignment) into `out`.
    private static func accumulate(_ bytes: UnsafeRawBufferPointer, floats: Int, into out: UnsafeMutablePointer<Float>) {
        let n = min(floats, bytes.count / MemoryLayout<Float>.stride)
        guard n > 0, let base = bytes.baseAddress else { return }
        if Int(bitPattern: base) % MemoryLayout<Float>.alignment == 0 {
            UnsafeRawBufferPointer(rebasing: bytes[0..<(n * MemoryLayout<Float>.stride)]).withMemoryRebound(to: Float.self) { samples in
                for i in 0..<n { out[i] += samples[i] }
            }
        } else {
            for i in 0..<n { out[i] += bytes.loadUnaligned(fromByteOffset: i * MemoryLayout<Float>.stride, as: Float.self) }
        }
    }
}
