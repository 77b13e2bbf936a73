/// Counters of a ``ScreenCapture`` since it started. A snapshot: values keep growing.
public struct ScreenCaptureStatistics: Sendable {
    /// Frames grabbed and delivered.
    public var captured: Int64
    /// Ticks whose frame was not grabbed because every pooled buffer was still held by consumers.
    public var droppedPoolExhausted: Int64
    /// Ticks skipped because the capture thread woke up more than one period late (the clock
    /// jumps forward instead of grabbing a burst of frames).
    public var lateTicks: Int64

    /// Creates a snapshot; all counters default to zero.
    public init(captured: Int64 = 0, droppedPoolExhausted: Int64 = 0, lateTicks: Int64 = 0) {
        self.captured = captured
        self.droppedPoolExhausted = droppedPoolExhausted
        self.lateTicks = lateTicks
    }
}
