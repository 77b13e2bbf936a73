import RecordKit

/// A small set of rectangles in frame coordinates that need refreshing, kept cheap: beyond
/// ``maxRects`` rectangles (or when they cover most of the frame) it collapses to their bounding
/// box, so a busy screen costs one rectangle, never a long list.
///
/// Every rectangle is clipped to the frame and aligned outward to even coordinates (4:2:0 chroma
/// covers 2×2 pixels, so a change never leaves half a chroma sample stale).
struct DirtyRegion: Equatable {
    /// Rectangles beyond which the region becomes one bounding box.
    static let maxRects = 16

    /// The rectangles, disjointness not guaranteed (overlaps are only grabbed twice).
    private(set) var rects: [PixelRect] = []
    private let width: Int
    private let height: Int

    /// An empty region for a `width` × `height` frame.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The whole frame.
    static func full(width: Int, height: Int) -> DirtyRegion {
        var region = DirtyRegion(width: width, height: height)
        region.rects = [PixelRect(x: 0, y: 0, width: width, height: height)]
        return region
    }

    /// Whether nothing is dirty.
    var isEmpty: Bool { rects.isEmpty }

    /// Whether the region is the whole frame.
    var isFull: Bool { rects.count == 1 && rects[0] == PixelRect(x: 0, y: 0, width: width, height: height) }

    /// Pixels covered (overlaps counted twice; an upper bound).
    var area: Int { rects.reduce(0) { $0 + $1.width * $1.height } }

    /// Adds `rect` (frame coordinates), clipped to the frame and aligned to even coordinates.
    mutating func add(_ rect: PixelRect) {
        guard !isFull else { return }
        let left = max(rect.x, 0) & ~1
        let top = max(rect.y, 0) & ~1
        let right = min((rect.x + rect.width + 1) & ~1, width)
        let bottom = min((rect.y + rect.height + 1) & ~1, height)
        guard right > left, bottom > top else { return }
        let clipped = PixelRect(x: left, y: top, width: right - left, height: bottom - top)
        if rects.contains(where: { $0.contains(clipped) }) { return }
        rects.removeAll { clipped.contains($0) }
        rects.append(clipped)
        if rects.count > Self.maxRects || area * 4 > width * height * 3 { collapse() }
    }

    /// Adds every rectangle of `other`.
    mutating func add(_ other: DirtyRegion) {
        for rect in other.rects { add(rect) }
    }

    /// Empties the region.
    mutating func removeAll() { rects.removeAll() }

    /// Replaces the rectangles by their bounding box.
    private mutating func collapse() {
        guard let first = rects.first else { return }
        var box = first
        for rect in rects.dropFirst() { box = box.union(rect) }
        rects = [box]
    }
}

extension PixelRect {
    /// Whether `other` lies entirely inside this rectangle.
    func contains(_ other: PixelRect) -> Bool {
        other.x >= x && other.y >= y && other.x + other.width <= x + width && other.y + other.height <= y + height
    }

    /// The smallest rectangle holding both.
    func union(_ other: PixelRect) -> PixelRect {
        let left = min(x, other.x), top = min(y, other.y)
        let right = max(x + width, other.x + other.width), bottom = max(y + height, other.y + other.height)
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The overlap of both, or nil when they do not overlap.
    func intersection(_ other: PixelRect) -> PixelRect? {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
