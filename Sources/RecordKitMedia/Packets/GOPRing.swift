import RecordKit

/// Encoded samples in arrival (timeline) order that always start at a video key frame, and
/// lose whole groups of pictures (a key frame and everything up to the next one, audio of that
/// span included) from the front. The one mechanism behind the live outputs' send queue
/// (bounded in time, dropping the oldest group when the network is slow) and the replay buffer
/// (the last N seconds, ready to be saved from a key frame).
///
/// Until its first key frame, and again after ``dropAll()``, the ring refuses samples
/// (``append(_:)`` returns false), so what it holds always starts where a decoder can. Dropped
/// samples are released at once. A value type without locks: its owner guards it.
package struct GOPRing {
    /// Dropped entries are nil until the array is compacted, so their memory goes at once.
    private var entries: [SampleBuffer?] = []
    private var head = 0
    /// Indices in `entries` of the video key frames at or after `head`.
    private var keyFrames: [Int] = []
    /// Whether samples are refused until the next video key frame.
    package private(set) var waitingForKeyFrame = true
    /// Bytes of encoded media held.
    package private(set) var bytes = 0
    /// Video samples held (the rest is audio).
    package private(set) var videoCount = 0

    /// An empty ring, waiting for a key frame.
    package init() {}

    /// Samples held.
    package var count: Int { entries.count - head }
    /// Whether nothing is held.
    package var isEmpty: Bool { count == 0 }
    /// The oldest sample held (a key frame unless the front group was partly taken).
    package var first: SampleBuffer? { head < entries.count ? entries[head] : nil }
    /// How many groups of pictures begin in the ring.
    package var groupCount: Int { keyFrames.count }

    /// The key frame that begins group `index` (0: the oldest).
    package func keyFrame(ofGroup index: Int) -> SampleBuffer? {
        index < keyFrames.count ? entries[keyFrames[index]] : nil
    }

    /// Appends an encoded sample; raw samples are ignored. Returns false when the sample was
    /// refused because the ring waits for a key frame.
    @discardableResult
    package mutating func append(_ sample: SampleBuffer) -> Bool {
        guard case .packet(let packet) = sample.payload else { return false }
        let isKey = sample.type == .video && packet.isKeyFrame
        if waitingForKeyFrame {
            guard isKey else { return false }
            waitingForKeyFrame = false
        }
        if isKey { keyFrames.append(entries.count) }
        entries.append(sample)
        bytes += packet.data.count
        if sample.type == .video { videoCount += 1 }
        return true
    }

    /// Removes and returns the oldest sample.
    package mutating func popFirst() -> SampleBuffer? {
        guard head < entries.count else { return nil }
        let sample = entries[head]
        if keyFrames.first == head { keyFrames.removeFirst() }
        release(head)
        head += 1
        compact()
        return sample
    }

    /// Drops the oldest group: everything up to, not including, the next key frame after the
    /// front sample. Without one, drops everything and waits for a key frame. Returns the
    /// number of samples dropped.
    @discardableResult
    package mutating func dropOldestGroup() -> Int {
        guard let next = keyFrames.first(where: { $0 > head }) else { return dropAll() }
        return drop(upTo: next)
    }

    /// Drops samples until a key frame is first (none when one already is); without a key
    /// frame, drops everything and waits for one. Returns the number dropped.
    @discardableResult
    package mutating func dropUntilKeyFrame() -> Int {
        guard let key = keyFrames.first else { return dropAll() }
        return drop(upTo: key)
    }

    /// Drops everything and waits for the next key frame. Returns the number dropped.
    @discardableResult
    package mutating func dropAll() -> Int {
        let n = count
        entries.removeAll(keepingCapacity: n < 4096)
        head = 0
        keyFrames.removeAll()
        bytes = 0
        videoCount = 0
        waitingForKeyFrame = true
        return n
    }

    /// The samples held, in order (references: no media is copied).
    package func snapshot() -> [SampleBuffer] { entries[head...].compactMap { $0 } }

    private mutating func drop(upTo index: Int) -> Int {
        let n = index - head
        for i in head..<index { release(i) }
        head = index
        keyFrames.removeAll { $0 < index }
        compact()
        return n
    }

    private mutating func release(_ index: Int) {
        guard let sample = entries[index] else { return }
        if case .packet(let p) = sample.payload { bytes -= p.data.count }
        if sample.type == .video { videoCount -= 1 }
        entries[index] = nil
    }

    /// Compacts now and then, so the array does not grow without end.
    private mutating func compact() {
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
            keyFrames.removeAll()
        } else if head > 1024, head * 2 > entries.count {
            entries.removeFirst(head)
            keyFrames = keyFrames.map { $0 - head }
            head = 0
        }
    }
}
