/// Why a recording should be paused right now (ReplayKit's "the app went to the background").
///
/// When several hold at once, the strongest is reported: ``screenLocked`` first, then
/// ``windowMinimized`` and ``windowUnmapped``, then ``windowUnfocused``.
package enum BackgroundReason: Sendable, Equatable, CustomStringConvertible {
    /// The recorded window is minimized: its `_NET_WM_STATE` contains `_NET_WM_STATE_HIDDEN`, or,
    /// under a window manager that does not support that state, its `WM_STATE` is `IconicState`.
    case windowMinimized
    /// The recorded window is not viewable without being minimized: it, or its window-manager
    /// frame, is unmapped (another workspace, withdrawn by its application).
    case windowUnmapped
    /// Policy ``PauseOnBackgroundPolicy/unfocused`` only: the active window (`_NET_ACTIVE_WINDOW`)
    /// is another top-level window, or no window is active.
    case windowUnfocused
    /// The MIT-SCREEN-SAVER extension reports the screen saver on (`ScreenSaverOn`): the saver
    /// runs or the screen is locked, so nothing on screen may be recorded.
    case screenLocked

    /// A short phrase for status lines and events, e.g. `window minimized`.
    package var description: String {
        switch self {
        case .windowMinimized: "window minimized"
        case .windowUnmapped: "window unmapped"
        case .windowUnfocused: "window unfocused"
        case .screenLocked: "screen locked or screen saver active"
        }
    }
}
