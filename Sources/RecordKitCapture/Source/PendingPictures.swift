import RecordKit

/// The pictures a push source (a PipeWire stream: the compositor sends a picture when the screen
/// changes) brought that its capture clock has not taken yet, oldest first.
///
/// Each picture's dirty rectangles are relative to the picture before it, so the clock takes all
/// of them, in order (``takeAll(into:)``), and gives each its own slot: two pictures that arrive within
/// one tick are both recorded. A clock that falls more than ``capacity`` pictures behind loses the
/// oldest, and that picture's dirty rectangles join the next one's, so every delivered picture
/// still names every pixel that changed since the picture delivered before it.
package struct PendingPictures<Picture> {
    /// A picture, when it was captured, and what changed since the picture before it.
    package struct Entry {
        /// The pixels (for PipeWire, a pooled copy of the stream's buffer).
        package var picture: Picture
        /// `CLOCK_MONOTONIC` nanoseconds of the capture.
        package var captureNs: UInt64
        /// Rectangles (frame coordinates) outside which the picture equals the one before it;
        /// nil when unknown (all changed).
        package var dirtyRects: [PixelRect]?

        /// Describes one picture.
        package init(picture: Picture, captureNs: UInt64, dirtyRects: [PixelRect]?) {
            self.picture = picture
            self.captureNs = captureNs
            self.dirtyRects = dirtyRects
        }
    }

    /// Pictures kept at most; a further one drops the oldest.
    package let capacity: Int
    private let width: Int
    private let height: Int
    private var entries: [Entry] = []

    /// An empty queue for `width` × `height` pictures, holding at most `capacity` (at least 1).
    package init(capacity: Int, width: Int, height: Int) {
        self.capacity = max(1, capacity)
        self.width = width
        self.height = height
        entries.reserveCapacity(self.capacity + 1)  // an append past capacity, before the drop
    }

    /// Pictures waiting.
    package var count: Int { entries.count }

    /// Adds the newest picture. Returns how many pictures were dropped to make room (0 or 1);
    /// the dropped picture's dirty rectangles move to the picture after it.
    @discardableResult
    package mutating func append(_ entry: Entry) -> Int {
        entries.append(entry)
        guard entries.count > capacity else { return 0 }
        let oldest = entries.removeFirst()
        entries[0].dirtyRects = merged(oldest.dirtyRects, entries[0].dirtyRects)
        return 1
    }

    /// Every waiting picture, oldest first, into `taken` (emptied first); the queue is empty
    /// after. The two arrays change places, so a caller that keeps `taken` from tick to tick
    /// allocates nothing (returning the array shared its buffer, so emptying the queue then
    /// allocated a new one every time).
    package mutating func takeAll(into taken: inout [Entry]) {
        taken.removeAll(keepingCapacity: true)
        taken.reserveCapacity(capacity + 1)  // allocates only the first time
        swap(&entries, &taken)
    }

    /// What changed across two consecutive pictures: both lists (clipped, even-aligned, at most
    /// ``DirtyRegion/maxRects`` rectangles), or nil when either is unknown.
    private func merged(_ first: [PixelRect]?, _ second: [PixelRect]?) -> [PixelRect]? {
        guard let first, let second else { return nil }
        var region = DirtyRegion(width: width, height: height)
        for rect in first { region.add(rect) }
        for rect in second { region.add(rect) }
        return region.rects
    }
}

extension PendingPictures: Sendable where Picture: Sendable {}
extension PendingPictures.Entry: Sendable where Picture: Sendable {}
