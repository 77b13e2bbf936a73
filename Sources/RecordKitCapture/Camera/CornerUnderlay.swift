import RecordKit

/// What the screen really shows under the camera's corner, for a screen source whose changed
/// frames the overlay draws into in place (``VideoSource/lendsWritableFrames``).
///
/// Such a source builds each frame from earlier ones wherever its dirty rectangles do not reach,
/// so where the overlay drew the camera those parts hold camera pixels, not the screen. This
/// keeps the screen's own pixels of the corner, refreshed from each changed frame where the
/// frame brings them fresh, and draws them when the corner must show the screen (the camera
/// switched off or gone). Four bytes per corner pixel (0.7 MB for 480x360).
/// Confined to the capture thread.
struct CornerUnderlay {
    /// The corner, in frame pixels.
    let rect: PixelRect
    /// The corner's pixels, `rect.width` per row.
    private var pixels: [UInt32]
    /// Whether ``pixels`` hold the screen yet (a first frame takes the whole corner).
    private var isValid = false

    /// Keeps the screen under `rect`.
    init(rect: PixelRect) {
        self.rect = rect
        self.pixels = [UInt32](repeating: 0, count: rect.width * rect.height)
    }

    /// Takes the parts of the corner that changed frame `frame` brings fresh: where its dirty
    /// rectangles reach, or all of the corner when it has none (unknown: all fresh). Call with
    /// every changed frame of the source, before anything is drawn into it.
    mutating func refresh(from frame: CapturedFrame) {
        guard let source = frame.pixels.bytes.baseAddress else { return }
        let parts: [PixelRect]
        if isValid, let dirty = frame.dirtyRects {
            parts = dirty.compactMap { $0.intersection(rect) }
        } else {
            parts = [rect]
        }
        isValid = true
        let corner = rect
        pixels.withUnsafeMutableBytes { kept in
            for part in parts {
                PixelCopy.block(width: part.width, height: part.height,
                                from: source + part.y * frame.bytesPerRow + part.x * 4, bytesPerRow: frame.bytesPerRow,
                                to: kept.baseAddress! + (part.y - corner.y) * corner.width * 4 + (part.x - corner.x) * 4,
                                bytesPerRow: corner.width * 4)
            }
        }
    }

    /// Draws the kept pixels into the corner of the frame at `destination` (rows `bytesPerRow` apart).
    func draw(into destination: UnsafeMutableRawPointer, bytesPerRow: Int) {
        pixels.withUnsafeBytes { kept in
            PixelCopy.block(width: rect.width, height: rect.height, from: kept.baseAddress!, bytesPerRow: rect.width * 4,
                            to: destination + rect.y * bytesPerRow + rect.x * 4, bytesPerRow: bytesPerRow)
        }
    }
}
