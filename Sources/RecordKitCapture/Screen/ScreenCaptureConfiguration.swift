/// Settings of a ``ScreenCapture``, fixed when it is created.
public struct ScreenCaptureConfiguration: Sendable {
    /// The X display to open, e.g. `:0`; nil means the `DISPLAY` environment variable.
    public var display: String?
    /// What to capture.
    public var target: CaptureTarget
    /// Ticks per second of the capture clock. Values outside 1...240 are clamped into that range.
    public var framesPerSecond: Int
    /// Whether the mouse cursor is composited into frames (needs the XFixes extension; without
    /// it frames come without a cursor).
    public var showsCursor: Bool
    /// What an unchanged tick delivers: a repeated frame (constant) or nothing (variable).
    public var frameRateMode: FrameRateMode
    /// The name of the video source that captures (``VideoSourceRegistry``: "x11", "portal"),
    /// or nil to choose by the session: the portal in a Wayland session without X, X11 otherwise.
    public var source: String? = nil

    /// Creates a configuration; the defaults capture the whole `$DISPLAY` at 30 fps with the cursor.
    public init(display: String? = nil, target: CaptureTarget = .screen,
                framesPerSecond: Int = 30, showsCursor: Bool = true, frameRateMode: FrameRateMode = .constant) {
        self.frameRateMode = frameRateMode
        self.display = display
        self.target = target
        self.framesPerSecond = framesPerSecond
        self.showsCursor = showsCursor
    }
}
