import RecordKit

/// One grabbed frame of the screen, in BGR0 (`AV_PIX_FMT_BGR0`): per pixel the bytes B, G, R
/// and one unused byte whose value is undefined.
///
/// The pixels live in a pooled buffer: keep the frame (or its ``pixels``) only as long as you
/// need it, because a ``ScreenCapture`` whose pool is fully held drops new frames rather than wait.
/// The memory is immutable once delivered and may be read from any thread.
package struct CapturedFrame: Sendable {
    /// The pixels: ``height`` rows of ``bytesPerRow`` bytes, the first ``width`` × 4 of each used.
    package let pixels: MediaBuffer
    /// Distance in bytes between the starts of two rows (at least ``width`` × 4).
    package let bytesPerRow: Int
    /// Width in pixels (even).
    package let width: Int
    /// Height in pixels (even).
    package let height: Int
    /// `CLOCK_MONOTONIC` nanoseconds at which the content was grabbed: the midpoint of the
    /// image request to the X server.
    package let captureTime: UInt64
    /// Index of the capture tick since ``ScreenCapture/start(deliver:)``: `captureTime` is close
    /// to start + `sequence` / fps. Skipped or dropped ticks leave gaps.
    package let sequence: Int64
    /// `CLOCK_MONOTONIC` nanoseconds at which this tick was due: start + `sequence` / fps. A
    /// constant-frame-rate encoder places the frame in the slot of this time, so a tick that
    /// woke late still fills its own slot instead of pushing into the next one.
    package let scheduledTime: UInt64
    /// Whether any pixel differs from the frame delivered just before (the one with sequence
    /// ``previousSequence``). False for a repeated picture (``FrameRateMode``): then ``pixels``
    /// is the very buffer of that previous frame.
    package let isChanged: Bool
    /// The rectangles (frame pixel coordinates, even-aligned) outside which this frame equals
    /// the previous one; nil means unknown: treat the whole frame as changed. Empty when
    /// ``isChanged`` is false.
    package let dirtyRects: [PixelRect]?
    /// ``sequence`` of the frame delivered just before this one, which ``dirtyRects`` are
    /// relative to; nil for the first frame. A consumer that did not see that frame (it dropped
    /// it) must treat this frame as entirely changed.
    package let previousSequence: Int64?

    /// Describes a frame. ``ScreenCapture`` creates them; tests and synthetic sources may too
    /// (`scheduledTime` defaults to `captureTime`; by default a frame is entirely changed).
    package init(pixels: MediaBuffer, bytesPerRow: Int, width: Int, height: Int,
                captureTime: UInt64, sequence: Int64, scheduledTime: UInt64? = nil,
                isChanged: Bool = true, dirtyRects: [PixelRect]? = nil, previousSequence: Int64? = nil) {
        self.scheduledTime = scheduledTime ?? captureTime
        self.isChanged = isChanged
        self.dirtyRects = isChanged ? dirtyRects : []
        self.previousSequence = previousSequence
        self.pixels = pixels
        self.bytesPerRow = bytesPerRow
        self.width = width
        self.height = height
        self.captureTime = captureTime
        self.sequence = sequence
    }
}
