import RecordKit

/// What part of the display a ``ScreenCapture`` records.
package enum CaptureTarget: Sendable, Equatable {
    /// The whole root window (every monitor of the X screen).
    case screen
    /// A fixed rectangle of the screen; it must lie inside the root window.
    case region(PixelRect)
    /// One window, followed as it moves. See ``ScreenCapture`` for how size changes, hiding and
    /// destruction are handled.
    case window(WindowSelector)
    /// One RandR monitor, followed when its geometry changes (checked once a second); the output
    /// size is the monitor's size at start, and a later size change is cropped or padded as for
    /// a window. A monitor that disappears records black.
    case monitor(MonitorSelector)
}
