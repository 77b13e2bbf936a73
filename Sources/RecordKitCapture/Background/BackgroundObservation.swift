/// What one look at the X server found, before the policy is applied.
///
/// A plain value, so the precedence rules (``reason(policy:)``) are testable without X.
struct BackgroundObservation: Sendable, Equatable {
    /// MIT-SCREEN-SAVER reports `ScreenSaverOn` (saver running or screen locked).
    var screenSaverOn = false
    /// The recorded window and all its ancestors are mapped (`IsViewable`). True without a window.
    var windowViewable = true
    /// The window manager marks the window minimized (`_NET_WM_STATE_HIDDEN`, or `WM_STATE`
    /// `IconicState` under a window manager without that EWMH state).
    var windowMinimized = false
    /// Whether the recorded window's top-level window is the active one; nil when unknown or
    /// not looked at (no window, or a policy that ignores focus).
    var windowActive: Bool?

    /// The reason to pause now under `policy`, strongest first: screen lock, then minimized,
    /// then unmapped, then (policy ``PauseOnBackgroundPolicy/unfocused`` only) unfocused.
    func reason(policy: PauseOnBackgroundPolicy) -> BackgroundReason? {
        if screenSaverOn { return .screenLocked }
        guard policy != .never else { return nil }
        if windowMinimized { return .windowMinimized }
        if !windowViewable { return .windowUnmapped }
        if policy == .unfocused, windowActive == false { return .windowUnfocused }
        return nil
    }
}
