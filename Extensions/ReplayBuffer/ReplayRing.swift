import RecordKit
import RecordKitMedia

/// The buffer itself: encoded samples in arrival (timeline) order, starting at a video key
/// frame, bounded by time and bytes by dropping whole groups of pictures from the front (a
/// `GOPRing` with the replay buffer's policy: keep the newest groups that cover the duration).
///
/// The packets' bytes are copied into a ``PacketArena`` of the buffer's own (sized by
/// ``maxBytes``), so that a minute of packets does not sit in malloc's arenas between the
/// encoders' short-lived allocations (the hour-long soak's memory growth); a packet the arena
/// has no room for keeps its own buffer.
///
/// A value type with no locks; ``ReplayBufferHandler`` keeps it under a mutex so that a save
/// takes a snapshot (references only) in microseconds.
struct ReplayRing {
    /// Recorded time to cover, in nanoseconds.
    let maxDurationNs: Int64
    /// Most bytes to hold.
    let maxBytes: Int

    private var ring = GOPRing()
    /// Where the held packets' bytes live; nil when the system refused the mapping.
    private let arena: PacketArena?
    /// Where the newest video frame ends, in broadcast nanoseconds.
    private(set) var newestVideoEndNs: Int64 = 0

    init(maxDurationNs: Int64, maxBytes: Int) {
        self.maxDurationNs = maxDurationNs
        self.maxBytes = maxBytes
        // Room for the bound, 64-byte rounding of small (audio) packets, and a save that still
        // holds the oldest groups while new ones arrive; address space only until written
        // (at most 6 GiB of it: beyond, packets keep their own buffers).
        let bound = min(maxBytes, 4 << 30)
        self.arena = PacketArena(capacity: bound + bound / 2 + 16 << 20)
    }

    /// Bytes of encoded media held.
    var bytes: Int { ring.bytes }

    /// Bytes the arena holds for the buffer's packets (64-byte rounded), for tests.
    var arenaBytes: Int { arena?.bytes ?? 0 }

    /// Seconds of video held (first key frame to the end of the newest frame).
    var seconds: Double {
        guard let first = ring.keyFrame(ofGroup: 0) else { return 0 }
        return Double(max(0, newestVideoEndNs - first.presentationTime.nanoseconds)) / 1e9
    }

    /// Adds one encoded sample. Nothing is kept before the first video key frame (a clip must
    /// start where a decoder can); then whole groups of pictures go from the front while the
    /// rest still covers the duration, or while the bytes exceed their bound.
    mutating func append(_ sample: SampleBuffer) {
        guard ring.append(inArena(sample)) else { return }
        if sample.type == .video {
            newestVideoEndNs = max(newestVideoEndNs, sample.presentationTime.nanoseconds + sample.duration.nanoseconds)
        }
        while ring.groupCount >= 2, let next = ring.keyFrame(ofGroup: 1),
              newestVideoEndNs - next.presentationTime.nanoseconds >= maxDurationNs || ring.bytes > maxBytes {
            ring.dropOldestGroup()
        }
    }

    /// `sample` with its packet's bytes copied into the arena (itself when it is raw, or the
    /// arena has no room).
    private func inArena(_ sample: SampleBuffer) -> SampleBuffer {
        guard case .packet(let packet) = sample.payload, let arena,
              let copy = arena.copy(packet.data.bytes) else { return sample }
        return sample.replacing(payload: .packet(packet.replacing(data: copy)))
    }

    /// The samples held, in order (references: no media is copied).
    func snapshot() -> [SampleBuffer] { ring.snapshot() }

    /// Drops everything.
    mutating func removeAll() {
        ring.dropAll()
        newestVideoEndNs = 0
    }
}
