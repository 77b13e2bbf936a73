import RecordKit
import RecordKitMedia

/// The packets waiting to be sent, bounded in broadcast time, dropping whole groups of pictures
/// (a `GOPRing` with the live outputs' policy).
///
/// Packets (H.264 video and AAC audio) are appended in the order the pipeline delivers them
/// (timeline order). When the waiting packets span more than ``limitNanoseconds`` of broadcast
/// time, the oldest group of pictures goes: everything from the front up to, not including, the
/// next video key frame, audio of that span included. So what remains still starts on a key
/// frame (or continues the group being sent, whose rest was dropped: the stream jumps to the
/// next key frame and stays decodable). When no later key frame is waiting, everything goes and
/// new packets are refused until the next key frame arrives; so are packets before the first.
///
/// ``startSession()`` prepares a new connection: it drops packets until a video key frame is at
/// the front, since a new stream must start with one.
///
/// This is the output's one queue and its one drop policy: the pipeline hands the handler its
/// packets directly (``QueueOwningHandler``), so what a slow network loses is decided here alone.
/// Every packet dropped or refused is counted in ``counts`` (video and audio apart), which the
/// handler's `dropped` status and the pipeline's statistics both report. Not thread-safe: the
/// sender guards it.
struct PacketQueue {
    /// One waiting packet.
    struct Entry {
        let sample: SampleBuffer
        var isVideo: Bool { sample.type == .video }
        var isKeyFrame: Bool {
            if case .packet(let p) = sample.payload { return isVideo && p.isKeyFrame }
            return false
        }
        /// Decode time on the broadcast timeline, in nanoseconds.
        var time: Int64 { sample.timelineTime.nanoseconds }
    }

    /// The most broadcast time the queue may span.
    let limitNanoseconds: Int64
    /// Packets dropped so far, video and audio apart, and what waits.
    private(set) var counts = HandlerCounts()
    /// Packets dropped so far, video and audio.
    var dropped: Int64 { counts.droppedVideo + counts.droppedAudio }
    private var ring = GOPRing()
    private var newest: Int64 = .min

    /// A queue that holds at most `limitSeconds` of broadcast time.
    init(limitSeconds: Double) {
        limitNanoseconds = Int64(limitSeconds * 1e9)
    }

    /// Packets waiting.
    var count: Int { ring.count }
    /// Whether nothing waits.
    var isEmpty: Bool { ring.isEmpty }
    /// Broadcast time between the oldest waiting packet and the newest one, in nanoseconds.
    var spanNanoseconds: Int64 { ring.first.map { max(0, newest - $0.timelineTime.nanoseconds) } ?? 0 }

    /// Appends an encoded `sample` (others are ignored), then drops old groups of pictures
    /// while the queue spans more than the limit.
    mutating func push(_ sample: SampleBuffer) {
        guard case .packet = sample.payload else { return }
        guard ring.append(sample) else {
            countDropped(1, video: sample.type == .video)
            return
        }
        newest = max(newest, sample.timelineTime.nanoseconds)
        while spanNanoseconds > limitNanoseconds { drop { $0.dropOldestGroup() } }
        if ring.isEmpty { newest = .min }
        counts.queued = ring.count
        counts.queueHighWater = max(counts.queueHighWater, ring.count)
    }

    /// Removes and returns the oldest packet.
    mutating func popFirst() -> Entry? {
        guard let sample = ring.popFirst() else { return nil }
        if ring.isEmpty { newest = .min }
        counts.queued = ring.count
        return Entry(sample: sample)
    }

    /// Drops packets from the front until a video key frame is first; when none waits, drops
    /// everything and refuses packets until one arrives. Returns the number dropped.
    @discardableResult
    mutating func startSession() -> Int {
        let n = drop { $0.dropUntilKeyFrame() }
        if ring.isEmpty { newest = .min }
        return n
    }

    /// Drops everything waiting (counted); packets are accepted again from the next key frame.
    mutating func dropAll() {
        drop { $0.dropAll() }
        newest = .min
    }

    /// Counts `n` video (or audio) packets that were lost elsewhere (for example in a failed write).
    mutating func countDropped(_ n: Int, video: Bool) {
        if video { counts.droppedVideo += Int64(n) } else { counts.droppedAudio += Int64(n) }
    }

    /// Runs one of the ring's drops and counts what it dropped, video and audio apart.
    @discardableResult
    private mutating func drop(_ body: (inout GOPRing) -> Int) -> Int {
        let videoBefore = ring.videoCount
        let n = body(&ring)
        let video = videoBefore - ring.videoCount
        counts.droppedVideo += Int64(video)
        counts.droppedAudio += Int64(n - video)
        counts.queued = ring.count
        return n
    }
}
