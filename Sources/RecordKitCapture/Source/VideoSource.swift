/// A source of screen frames that the pipeline records: X11 (``ScreenCapture``), the Wayland
/// ScreenCast portal, or any other registered in ``VideoSourceRegistry``.
///
/// The contract every source keeps, as ``ScreenCapture`` documents it: the size is fixed once
/// created; ``start(deliver:)`` delivers BGR0 frames on a thread of the source's own (never
/// Swift's cooperative pool), one at a time, in capture order, each stamped on
/// `CLOCK_MONOTONIC` (``CapturedFrame/captureTime``) with the tick it fills
/// (``CapturedFrame/scheduledTime``); ``FrameRateMode`` decides what a still screen delivers;
/// frames come from a bounded pool and are dropped, never waited for, when consumers hold it.
/// After ``stop()`` returns nothing is delivered or called back.
package protocol VideoSource: AnyObject, Sendable {
    /// Width of every frame in pixels (even).
    var width: Int { get }
    /// Height of every frame in pixels (even).
    var height: Int { get }
    /// The recorded window's id, when the source records one X11 window; nil otherwise.
    var windowID: UInt? { get }
    /// Counters since start; a consistent snapshot, from any thread.
    var statistics: ScreenCaptureStatistics { get }
    /// Called once when the recorded window is destroyed (capture ends). Set before start.
    var onWindowGone: (@Sendable () -> Void)? { get set }
    /// Called once when capture cannot go on (the display or the portal session went away),
    /// with the reason. Set before start.
    var onFailure: (@Sendable (CaptureError) -> Void)? { get set }
    /// Starts delivering frames; only the first call does anything.
    func start(deliver: @escaping @Sendable (CapturedFrame) -> Void)
    /// Stops and releases everything; idempotent, from any thread (also from `deliver`).
    func stop()
    /// Whether the receiver of ``start(deliver:)`` may write into the pixels of a changed frame
    /// (``CapturedFrame/isChanged``) during `deliver`, before it hands the frame on: a
    /// compositor then draws over the screen in place instead of copying it. A source that says
    /// yes delivers each changed frame in a buffer that nothing reads until `deliver` returns;
    /// where a later frame's ``CapturedFrame/dirtyRects`` do not reach, its pixels may be
    /// copied from earlier frames as the receiver left them (the receiver keeps what it
    /// covered itself). A repeated frame is never written. False unless the source says so.
    var lendsWritableFrames: Bool { get }
}

extension VideoSource {
    /// Frames are read-only unless a source says otherwise.
    package var lendsWritableFrames: Bool { false }
}

extension ScreenCapture: VideoSource {
    /// Yes: changed frames are grabbed into pool buffers of their own; unchanged parts are
    /// copied from the last frame delivered.
    package var lendsWritableFrames: Bool { true }
}
