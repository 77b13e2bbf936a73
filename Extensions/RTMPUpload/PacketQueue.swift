import RecordKit

/// The packets waiting to be sent, bounded in broadcast time, dropping whole groups of pictures.
///
/// Packets (H.264 video and AAC audio) are appended in the order the pipeline delivers them
/// (timeline order). When the waiting packets span more than ``limitNanoseconds`` of broadcast
/// time, the oldest group of pictures goes: everything from the front up to, not including, the
/// next video key frame, audio of that span included. So what remains still starts on a key
/// frame (or continues the group being sent, whose rest was dropped: the stream jumps to the
/// next key frame and stays decodable). When no later key frame is waiting, everything goes and
/// new packets are refused until the next key frame arrives.
///
/// ``startSession()`` prepares a new connection: it drops packets until a video key frame is at
/// the front, since a new stream must start with one.
///
/// Every packet dropped is counted in ``dropped``. Not thread-safe: the sender guards it.
struct PacketQueue {
    /// One waiting packet.
    struct Entry {
        let sample: SampleBuffer
        let isVideo: Bool
        let isKeyFrame: Bool
        /// Decode time on the broadcast timeline, in nanoseconds.
        let time: Int64
    }

    /// The most broadcast time the queue may span.
    let limitNanoseconds: Int64
    /// Packets dropped so far.
    private(set) var dropped: Int64 = 0
    private var entries: [Entry] = []
    private var head = 0
    private var newest: Int64 = .min
    private var waitingForKeyFrame = false

    /// A queue that holds at most `limitSeconds` of broadcast time.
    init(limitSeconds: Double) {
        limitNanoseconds = Int64(limitSeconds * 1e9)
    }

    /// Packets waiting.
    var count: Int { entries.count - head }
    /// Whether nothing waits.
    var isEmpty: Bool { count == 0 }
    /// Broadcast time between the oldest waiting packet and the newest one, in nanoseconds.
    var spanNanoseconds: Int64 { isEmpty ? 0 : max(0, newest - entries[head].time) }

    /// Appends an encoded `sample` (others are ignored), then drops old groups of pictures
    /// while the queue spans more than the limit.
    mutating func push(_ sample: SampleBuffer) {
        guard case .packet(let packet) = sample.payload else { return }
        let isVideo = sample.type == .video
        let isKey = isVideo && packet.isKeyFrame
        if waitingForKeyFrame {
            guard isKey else {
                dropped += 1
                return
            }
            waitingForKeyFrame = false
        }
        let time = sample.timelineTime.nanoseconds
        entries.append(Entry(sample: sample, isVideo: isVideo, isKeyFrame: isKey, time: time))
        newest = max(newest, time)
        while spanNanoseconds > limitNanoseconds { dropOldestGroup() }
    }

    /// Removes and returns the oldest packet.
    mutating func popFirst() -> Entry? {
        guard head < entries.count else { return nil }
        let entry = entries[head]
        head += 1
        compactIfNeeded()
        return entry
    }

    /// Drops packets from the front until a video key frame is first; when none waits, drops
    /// everything and refuses packets until one arrives. Returns the number dropped.
    @discardableResult
    mutating func startSession() -> Int {
        let before = dropped
        if let key = nextKeyFrame(from: head) {
            drop(upTo: key)
        } else {
            dropAll()
        }
        return Int(dropped - before)
    }

    /// Drops everything waiting (counted); packets are accepted again from the next key frame.
    mutating func dropAll() {
        dropped += Int64(count)
        entries.removeAll(keepingCapacity: true)
        head = 0
        newest = .min
        waitingForKeyFrame = true
    }

    /// Counts `n` packets that were lost elsewhere (for example in a failed write).
    mutating func countDropped(_ n: Int) { dropped += Int64(n) }

    // MARK: - Private

    private mutating func dropOldestGroup() {
        // The next key frame after the front one; the front itself may be one.
        if let key = nextKeyFrame(from: head + 1) {
            drop(upTo: key)
        } else {
            dropAll()
        }
    }

    private func nextKeyFrame(from start: Int) -> Int? {
        var index = start
        while index < entries.count {
            if entries[index].isKeyFrame { return index }
            index += 1
        }
        return nil
    }

    private mutating func drop(upTo index: Int) {
        dropped += Int64(index - head)
        head = index
        compactIfNeeded()
    }

    private mutating func compactIfNeeded() {
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
            newest = .min
        } else if head > 256, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
