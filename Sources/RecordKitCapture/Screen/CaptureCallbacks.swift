import Synchronization

/// The event callbacks of a ``ScreenCapture``, settable from any thread and read by the capture
/// thread when an event happens.
final class CaptureCallbacks: Sendable {
    private struct Values {
        var windowGone: (@Sendable () -> Void)?
        var failure: (@Sendable (CaptureError) -> Void)?
    }

    private let values = Mutex(Values())

    /// Called once when the captured window is destroyed.
    var windowGone: (@Sendable () -> Void)? {
        get { values.withLock { $0.windowGone } }
        set { values.withLock { $0.windowGone = newValue } }
    }

    /// Called once when capture fails for good.
    var failure: (@Sendable (CaptureError) -> Void)? {
        get { values.withLock { $0.failure } }
        set { values.withLock { $0.failure = newValue } }
    }
}
