import Glibc
import Synchronization

/// Watches whether a recording is "in the background" (ReplayKit's app-in-background), so the
/// recorder can pause and resume by itself.
///
/// For every recording, a locked screen or an active screen saver is a reason to pause. When a
/// window is recorded, so is that window being minimized or unmapped and, with policy
/// ``PauseOnBackgroundPolicy/unfocused``, another window being active; and the window's
/// destruction is reported. See ``BackgroundReason`` for how each is detected and for precedence.
///
/// The monitor has its own X connection (separate from capture's) and, once started, one
/// dedicated thread (not Swift concurrency) that looks at once, then whenever the X server
/// sends a relevant event and at least every poll interval, and calls `onChange` on each
/// transition only. Lifetime: ``start(onChange:)`` once, ``stop()`` when done (deinit stops too).
package final class BackgroundMonitor: @unchecked Sendable {
    private enum Lifecycle {
        case idle
        case running(CaptureThread)
        case stopped
    }

    private let loop: BackgroundLoop
    private let lifecycle = Mutex<Lifecycle>(.idle)

    /// Opens a connection to `display` (nil: `$DISPLAY`) and checks `window`.
    ///
    /// - Parameters:
    ///   - display: the X display, e.g. `:0`; nil for `$DISPLAY`.
    ///   - window: the recorded window: a client window id as `xdotool`/`xwininfo` report it, its
    ///     window-manager frame, or a window inside it; nil when recording the screen or a region
    ///     (then only the screen lock applies). The root window counts as the screen.
    ///   - policy: which window states pause; ``PauseOnBackgroundPolicy/never`` disables the
    ///     window checks (the screen lock still pauses; destruction is still reported).
    ///   - pollIntervalMs: the longest time between two looks, in milliseconds (at least 1). X
    ///     events usually trigger a look much sooner.
    /// - Throws: ``CaptureError`` `.noDisplay` when the display cannot be opened;
    ///   `.windowNotFound` when `window` does not exist.
    package init(display: String?, window: UInt?, policy: PauseOnBackgroundPolicy,
                pollIntervalMs: Int = 50) throws(CaptureError) {
        let probe = try BackgroundProbe(display: display, window: window, policy: policy)
        loop = BackgroundLoop(probe: probe, policy: policy, intervalMilliseconds: pollIntervalMs)
    }

    /// Starts the monitor thread. The first look happens at once: if the recording is already in
    /// the background, `onChange` receives `.background(reason)` right away.
    ///
    /// `onChange` runs on the monitor thread, one call at a time, only on transitions:
    /// `.background(reason)` when a reason starts or changes to another, `.foreground(previous:)`
    /// when none holds any more, `.windowDestroyed` once, after which the thread ends. It should
    /// return quickly (it delays the next look); it may call ``stop()``. Calls after the first
    /// (or after ``stop()``) do nothing.
    package func start(onChange: @escaping @Sendable (BackgroundChange) -> Void) {
        lifecycle.withLock { state in
            guard case .idle = state else { return }
            let loop = self.loop
            switch CaptureThread.start(name: "rk-background", { loop.run(onChange: onChange) }) {
            case .success(let thread):
                state = .running(thread)
            case .failure(let error):
                // Without a thread nothing can be watched; say so instead of failing silently.
                let text = "RecordKit: pause-on-background is off: cannot start its thread: \(error)\n"
                _ = text.withCString { write(2, $0, strlen($0)) }
                loop.closeWithoutRunning()
                state = .stopped
            }
        }
    }

    /// The reason the recording should be paused now, as last reported to `onChange`; nil in the
    /// foreground (and before the first look). Thread-safe. After `.windowDestroyed` it keeps
    /// the last value.
    package var current: BackgroundReason? { loop.current }

    /// Stops the thread and waits for it to end (when called from `onChange`, it does not wait:
    /// the thread ends once `onChange` returns), then closes the X connection. No `onChange`
    /// call starts after `stop()` returns. Idempotent; thread-safe.
    package func stop() {
        let previous = lifecycle.withLock { state -> Lifecycle in
            let previous = state
            state = .stopped
            return previous
        }
        switch previous {
        case .idle:
            loop.closeWithoutRunning()
        case .running(let thread):
            loop.requestStop()
            thread.joinOrDetach()
        case .stopped:
            break
        }
    }

    deinit { stop() }
}
