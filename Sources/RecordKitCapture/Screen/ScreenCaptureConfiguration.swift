/// Settings of a ``ScreenCapture``, fixed when it is created.
package struct ScreenCaptureConfiguration: Sendable {
    /// The X display to open, e.g. `:0`; nil means the `DISPLAY` environment variable.
    package var display: String?
    /// What to capture.
    package var target: CaptureTarget
    /// Ticks per second of the capture clock. Values outside 1...240 are clamped into that range.
    package var framesPerSecond: Int
    /// Whether the mouse cursor is composited into frames (needs the XFixes extension; without
    /// it frames come without a cursor).
    package var showsCursor: Bool
    /// What an unchanged tick delivers: a repeated frame (constant) or nothing (variable).
    package var frameRateMode: FrameRateMode
    /// Whether a tick that finds the recorded window hidden (unmapped, minimized) delivers
    /// nothing instead of a black frame, and a window grab is checked afterwards to still be
    /// viewable (one more round trip a tick). Set when the recording pauses while its window is
    /// hidden (``PauseOnBackgroundPolicy``): the background monitor sees the window hide on a
    /// connection of its own and the pause takes effect a moment later, and the ticks in
    /// between would otherwise put black (or whatever lay under the window) into the recording.
    /// False: a hidden window records as black, as long as it stays hidden.
    package var skipsHiddenWindow = false
    /// The name of the video source that captures (``VideoSourceRegistry``: "x11", "portal"),
    /// or nil to choose by the session: the portal in a Wayland session without X, X11 otherwise.
    package var source: String? = nil
    /// The capture sources' settings from their declared options (``CaptureSourceDeclarations``),
    /// by source name, then by setup key: a registered source's factory reads its own
    /// (`settings["portal"]`); empty when none was given.
    package var settings: [String: [String: String]] = [:]

    /// Creates a configuration; the defaults capture the whole `$DISPLAY` at 30 fps with the cursor.
    package init(display: String? = nil, target: CaptureTarget = .screen,
                framesPerSecond: Int = 30, showsCursor: Bool = true, frameRateMode: FrameRateMode = .constant) {
        self.frameRateMode = frameRateMode
        self.display = display
        self.target = target
        self.framesPerSecond = framesPerSecond
        self.showsCursor = showsCursor
    }
}
