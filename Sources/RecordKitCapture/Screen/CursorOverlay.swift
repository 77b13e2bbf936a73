import CX11
import RecordKit

/// Draws the mouse cursor (XFixes) into frames.
///
/// The cursor image is fetched each tick (it carries the position); its pixels are converted
/// only when the cursor changes (`cursor_serial`), into a buffer reused across cursors. XFixes
/// delivers premultiplied ARGB, one pixel per `unsigned long` (64 bits on LP64), and it is blended
/// as such: `out = cursor + frame × (255 − alpha) / 255`.
///
/// Confined to the thread that owns the connection.
final class CursorOverlay {
    private let connection: XDisplayConnection
    private var pixels: UnsafeMutableBufferPointer<UInt32> = .init(start: nil, count: 0)
    private var serial: UInt?
    private var cursorWidth = 0
    private var cursorHeight = 0
    private var hotX = 0
    private var hotY = 0

    /// An overlay for `connection`, or nil when the server lacks XFixes.
    init?(connection: XDisplayConnection) {
        var eventBase: Int32 = 0, errorBase: Int32 = 0
        guard XFixesQueryExtension(connection.display, &eventBase, &errorBase) != 0 else { return nil }
        self.connection = connection
    }

    /// Where the cursor is and what it looks like, as of the last ``update()``.
    struct State: Equatable {
        /// The cursor image's rectangle in root coordinates.
        var rect: PixelRect
        /// XFixes' serial of the cursor image (changes when the shape changes).
        var serial: UInt
    }

    /// The state fetched by the last ``update()``, or nil when there is no cursor image.
    private(set) var state: State?

    /// Fetches the cursor's image and position (one round trip; the pixels are converted only
    /// when the shape changed) and returns the new state. A moved or changed cursor counts as
    /// damage for the area it covered and covers.
    @discardableResult
    func update() -> State? {
        guard let image = XFixesGetCursorImage(connection.display) else { state = nil; return nil }
        defer { XFree(image) }
        let cursor = image.pointee
        if cursor.cursor_serial != serial { convert(cursor) }
        guard cursorWidth > 0, cursorHeight > 0 else { state = nil; return nil }
        state = State(rect: PixelRect(x: Int(cursor.x) - hotX, y: Int(cursor.y) - hotY, width: cursorWidth, height: cursorHeight),
                      serial: cursor.cursor_serial)
        return state
    }

    /// Fetches the cursor (``update()``) and blends it into `frame`, whose pixel (0, 0) shows
    /// root position (`originX`, `originY`), touching only pixels inside `clip` (frame coordinates).
    func draw(into frame: UnsafeMutableRawPointer, bytesPerRow: Int, originX: Int, originY: Int, clip: PixelRect) {
        update()
        drawLast(into: frame, bytesPerRow: bytesPerRow, originX: originX, originY: originY, clip: clip)
    }

    /// Blends the cursor as of the last ``update()`` into `frame` (see ``draw(into:bytesPerRow:originX:originY:clip:)``).
    func drawLast(into frame: UnsafeMutableRawPointer, bytesPerRow: Int, originX: Int, originY: Int, clip: PixelRect) {
        guard let state, let source = pixels.baseAddress else { return }
        let left = state.rect.x - originX
        let top = state.rect.y - originY
        let startX = max(left, clip.x), endX = min(left + cursorWidth, clip.x + clip.width)
        let startY = max(top, clip.y), endY = min(top + cursorHeight, clip.y + clip.height)
        guard startX < endX, startY < endY else { return }
        for row in startY..<endY {
            let line = (frame + row * bytesPerRow).assumingMemoryBound(to: UInt32.self)
            let cursorLine = source + (row - top) * cursorWidth - left
            for column in startX..<endX {
                let pixel = cursorLine[column]
                let alpha = pixel >> 24
                if alpha == 0 && pixel & 0xffffff == 0 { continue }
                if alpha == 255 { line[column] = pixel & 0xffffff; continue }
                line[column] = CursorOverlay.blend(pixel, over: line[column], alpha: alpha)
            }
        }
    }

    /// `source + destination × (255 − alpha) / 255` per colour channel, saturating; X byte 0.
    private static func blend(_ source: UInt32, over destination: UInt32, alpha: UInt32) -> UInt32 {
        let keep = 255 - alpha
        func channel(_ shift: UInt32) -> UInt32 {
            let s = (source >> shift) & 0xff
            let d = (destination >> shift) & 0xff
            return min(255, s + (d * keep + 127) / 255) << shift
        }
        return channel(0) | channel(8) | channel(16)
    }

    /// Converts the 64-bit-per-pixel XFixes image into 32-bit ARGB in `pixels`.
    private func convert(_ cursor: XFixesCursorImage) {
        serial = cursor.cursor_serial
        cursorWidth = Int(cursor.width)
        cursorHeight = Int(cursor.height)
        hotX = Int(cursor.xhot)
        hotY = Int(cursor.yhot)
        let count = cursorWidth * cursorHeight
        if pixels.count < count {
            pixels.deallocate()
            pixels = .allocate(capacity: count)
        }
        guard let source = cursor.pixels else { cursorWidth = 0; return }
        for index in 0..<count { pixels[index] = UInt32(truncatingIfNeeded: source[index]) }
    }

    deinit { pixels.deallocate() }
}
