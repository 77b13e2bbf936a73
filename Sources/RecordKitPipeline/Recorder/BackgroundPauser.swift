import RecordKitCapture

/// Pause-on-background: watches the recorded window and the screen lock
/// (``BackgroundMonitor``) and reports each change, so the recorder pauses while the window is
/// hidden (or, by policy, unfocused) and while the screen is locked, as ReplayKit's in-app
/// recording pauses when the app leaves the foreground.
final class BackgroundPauser: Sendable {
    private let monitor: BackgroundMonitor

    private init(monitor: BackgroundMonitor) { self.monitor = monitor }

    /// Starts watching for `configuration`'s policy (nil when the configuration has none, or
    /// the display cannot be watched: the recording then never pauses by itself).
    static func start(configuration: RecordingConfiguration, window: UInt?,
                      onChange: @escaping @Sendable (BackgroundChange) -> Void) -> BackgroundPauser? {
        guard let policy = configuration.pauseOnBackground else { return nil }
        var watched: UInt?
        if case .window = configuration.screen.target { watched = window }
        guard let monitor = try? BackgroundMonitor(display: configuration.screen.display, window: watched, policy: policy) else { return nil }
        monitor.start(onChange: onChange)
        return BackgroundPauser(monitor: monitor)
    }

    /// Stops watching.
    func stop() { monitor.stop() }
}
