/// Counters of a ``ScreenCapture`` since it started. A snapshot: values keep growing.
package struct ScreenCaptureStatistics: Sendable {
    /// Frames grabbed and delivered.
    package var captured: Int64
    /// Ticks whose frame was not grabbed because every pooled buffer was still held by consumers.
    package var droppedPoolExhausted: Int64
    /// Pictures a push source brought (a PipeWire stream) that were dropped before the capture
    /// thread took them: it fell more than ``PendingPictures/capacity`` pictures behind.
    package var droppedBehind: Int64 = 0
    /// Ticks skipped because the capture thread woke up more than one period late (the clock
    /// jumps forward instead of grabbing a burst of frames).
    package var lateTicks: Int64
    /// Requests for pixels sent to the X server (a full-frame grab counts one, a tick that
    /// grabs three damaged rectangles counts three). Zero on a still screen.
    package var grabs: Int64 = 0
    /// Pixels grabbed from the X server in total (damaged rectangles, cursor area, full frames).
    package var grabbedPixels: Int64 = 0
    /// Pixels the X server reported damaged inside the captured area (overlaps counted once per report).
    package var damagedPixels: Int64 = 0
    /// Ticks on which nothing in the captured area changed (no grab at all).
    package var unchangedTicks: Int64 = 0
    /// Frames delivered that repeat the previous picture (constant frame rate, or the
    /// once-a-second frame of variable frame rate).
    package var repeatedFrames: Int64 = 0
    /// Ticks that found no change on time but one a moment later (moving content whose updates
    /// land just after the tick), grabbed then instead of a tick later. See ``CaptureLoop``.
    package var lateChanges: Int64 = 0
    /// Whether capture is damage-driven (the X server has DAMAGE); false means every tick grabs the whole frame.
    package var damageTracking: Bool = false

    /// Creates a snapshot; all counters default to zero.
    package init(captured: Int64 = 0, droppedPoolExhausted: Int64 = 0, lateTicks: Int64 = 0) {
        self.captured = captured
        self.droppedPoolExhausted = droppedPoolExhausted
        self.lateTicks = lateTicks
    }
}
