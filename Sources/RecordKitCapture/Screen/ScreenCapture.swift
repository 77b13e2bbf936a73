import Synchronization

/// Captures the X11 screen, a region of it, or one window, as BGR0 frames at a fixed rate.
///
/// **Set-up.** `init` does all the fallible work: it opens the display, resolves the target,
/// checks the pixel layout and sets up MIT-SHM (falling back to `XGetImage` when the extension
/// is missing or the server cannot attach our segment; see ``usesSharedMemory``). Nothing is
/// grabbed until ``start(deliver:)``.
///
/// **Threading.** ``start(deliver:)`` starts one dedicated thread (not a Swift task); the X
/// connection is used only by that thread from then on. Ticks follow absolute
/// `CLOCK_MONOTONIC` deadlines at `framesPerSecond`; a tick more than one period late is skipped
/// (``ScreenCaptureStatistics/lateTicks``) rather than caught up in a burst. `deliver` runs on
/// the capture thread, one frame at a time, in capture order: keep it short (hand the frame on).
/// Every other member may be used from any thread.
///
/// **Memory.** Frames come from a pool of 12 buffers (`CaptureSession.poolSlotCount`). A buffer
/// returns to the pool when the last reference to its ``CapturedFrame/pixels`` goes away; while
/// all of them are held, ticks are
/// dropped (``ScreenCaptureStatistics/droppedPoolExhausted``): capture never waits for a
/// consumer. With MIT-SHM the X server writes straight into the pooled buffer (no copy); the
/// segment is marked for removal as soon as it is attached, so it cannot leak, even on `kill -9`.
///
/// **Damage.** With the X DAMAGE extension a tick on which nothing in the captured area changed
/// (the cursor included) grabs nothing; a tick with a small change grabs only the damaged
/// rectangles into a buffer that already holds the previous picture. Each frame says what
/// changed (``CapturedFrame/isChanged``, ``CapturedFrame/dirtyRects``), and
/// ``ScreenCaptureConfiguration/frameRateMode`` decides what an unchanged tick delivers.
///
/// **Windows.** A window is followed as it moves: every tick reads its position and size and
/// grabs that rectangle of the root window (so it works under reparenting window managers, and
/// shows whatever covers the window). The output size is fixed at the window's size when
/// capture was set up (capped to the screen). When the window's size changes its content is
/// neither scaled nor distorted: it is anchored at the top-left corner, cropped when larger and
/// padded with black when smaller. Parts of the window off screen are black, and while the
/// window is not viewable (unmapped, minimized) frames are all black. When the window is
/// destroyed, ``onWindowGone`` is called once and capture ends.
package final class ScreenCapture: @unchecked Sendable {
    /// Width of every frame in pixels: the target's width rounded down to an even number.
    package let width: Int
    /// Height of every frame in pixels: the target's height rounded down to an even number.
    package let height: Int
    /// Whether frames are grabbed through MIT-SHM (fast, no copy). False on remote displays or
    /// when the X server cannot attach our shared memory; capture then uses `XGetImage`.
    package let usesSharedMemory: Bool
    /// The captured window's id (resolved from its name when selected by name), or nil when
    /// capturing the screen or a region.
    package let windowID: UInt?

    private enum Lifecycle: Sendable {
        case ready(CaptureSession)
        case running(CaptureThread, StopSignal)
        case stopped
    }

    private let framesPerSecond: Int
    private let frameRateMode: FrameRateMode
    private let lifecycle: Mutex<Lifecycle>
    private let counters = CaptureCounters()
    private let callbacks = CaptureCallbacks()

    /// Opens the display and prepares capture of `configuration.target`.
    ///
    /// - Throws: ``CaptureError`` of kind
    ///   - `.noDisplay` when no display is named and `DISPLAY` is unset, or it cannot be opened;
    ///   - `.badRegion` when a region does not lie inside the screen, or the target is smaller
    ///     than 2×2 pixels;
    ///   - `.windowNotFound` when no window has the given id or exact title;
    ///   - `.xError` when the screen is not a 24/32-bit BGRX TrueColor screen.
    package init(configuration: ScreenCaptureConfiguration) throws(CaptureError) {
        let session = try CaptureSession(configuration: configuration)
        self.width = session.width
        self.height = session.height
        self.usesSharedMemory = session.usesSharedMemory
        self.windowID = session.windowID
        self.framesPerSecond = configuration.framesPerSecond
        self.frameRateMode = configuration.frameRateMode
        self.lifecycle = Mutex(.ready(session))
    }

    /// Starts the capture thread, which calls `deliver` with each frame until ``stop()``.
    ///
    /// Only the first call does anything; a capture cannot be restarted after ``stop()``.
    /// If the thread cannot be created, ``onFailure`` is called on the caller's thread.
    package func start(deliver: @escaping @Sendable (CapturedFrame) -> Void) {
        let startError: CaptureError? = lifecycle.withLock { state in
            guard case .ready(let session) = state else { return nil }
            let stopSignal = StopSignal()
            let loop = CaptureLoop(session: session, framesPerSecond: framesPerSecond, frameRateMode: frameRateMode, stopSignal: stopSignal,
                                   counters: counters, callbacks: callbacks, deliver: deliver)
            switch CaptureThread.start(name: "rk-screen", { loop.run() }) {
            case .success(let thread):
                state = .running(thread, stopSignal)
                return nil
            case .failure(let error):
                session.close()
                state = .stopped
                return CaptureError(.xError, "could not start the screen capture thread: \(error)")
            }
        }
        if let startError { callbacks.failure?(startError) }
    }

    /// Stops capture: waits for the capture thread to end and closes the display. Once it
    /// returns, `deliver` and the callbacks are never called again. Idempotent; safe from any
    /// thread, including from inside `deliver` (then it does not wait, the thread ends right
    /// after `deliver` returns).
    package func stop() {
        let previous = lifecycle.withLock { state -> Lifecycle in
            let previous = state
            state = .stopped
            return previous
        }
        switch previous {
        case .running(let thread, let stopSignal):
            stopSignal.set()
            thread.joinOrDetach()
        case .ready(let session):
            session.close()
        case .stopped:
            break
        }
    }

    /// Counters since ``start(deliver:)``; a consistent snapshot, readable from any thread.
    package var statistics: ScreenCaptureStatistics { counters.snapshot }

    /// Called once, on the capture thread, when the captured window is destroyed; no frame is
    /// delivered after it and the capture thread ends (``stop()`` is still needed to release it
    /// and is then immediate). Set it before ``start(deliver:)``.
    package var onWindowGone: (@Sendable () -> Void)? {
        get { callbacks.windowGone }
        set { callbacks.windowGone = newValue }
    }

    /// Called once, on the capture thread, when capture cannot go on: the X server went away or
    /// dropped the connection (the process survives it), or the screen shrank below the frame
    /// size. No frame is delivered after it. Set it before ``start(deliver:)``.
    package var onFailure: (@Sendable (CaptureError) -> Void)? {
        get { callbacks.failure }
        set { callbacks.failure = newValue }
    }

    deinit { stop() }
}
