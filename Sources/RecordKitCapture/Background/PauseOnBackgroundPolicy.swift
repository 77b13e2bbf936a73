/// When recording a window, which kinds of "background" pause the recording
/// (`--pause-on-background hidden|unfocused|never`).
///
/// Whatever the policy, a locked screen or an active screen saver pauses every recording, and a
/// recorded window that is destroyed is always reported (``BackgroundChange/windowDestroyed``).
/// The raw values are the command-line and JSON spellings.
package enum PauseOnBackgroundPolicy: String, Sendable, CaseIterable {
    /// Pause while the window is minimized or unmapped (hidden). The default.
    case hidden
    /// Pause while the window is hidden, and also while another window is active
    /// (`_NET_ACTIVE_WINDOW`).
    case unfocused
    /// Never pause because of the window; only the screen lock or screen saver pauses.
    case never

    /// The policy used when none is given: ``hidden``.
    package static let `default`: PauseOnBackgroundPolicy = .hidden
}
