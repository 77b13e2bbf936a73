import RecordKitControl

extension StartArguments {
    /// The capture options in which these arguments ask for something else than `running` (the
    /// arguments the running capture started with), as `--option value` pairs for an error
    /// message; empty when a `start` with these arguments may join the running capture.
    ///
    /// A capture option left at its default is not a difference: a `start` that names only
    /// outputs (`recordctl start`, `start --no-file --rtmp URL`) records what already runs.
    /// Only options given with another value than the running capture's are; changing them
    /// needs a new capture (screen, region, frame rate, audio sources are opened once for every output).
    func captureDifferences(from running: StartArguments) -> [String] {
        let defaults = StartArguments()
        var differences: [String] = []
        func check<T: Equatable>(_ name: String, _ value: KeyPath<StartArguments, T>) {
            let mine = self[keyPath: value]
            guard mine != defaults[keyPath: value], mine != running[keyPath: value] else { return }
            differences.append("\(name) \(Self.describe(mine)) (the running capture: \(Self.describe(running[keyPath: value])))")
        }
        check("--fps", \.fps)
        check("--pause-on-background", \.pauseOnBackground)
        check("DISPLAY", \.display)
        check("PULSE_SERVER", \.audioServer)
        // The capture sources' declared options (the area, the audio tracks, the camera) are
        // compared where they are resolved: RecordingSession.attach.
        return differences
    }

    private static func describe<T>(_ value: T) -> String {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return "\(value)" }
        return mirror.children.first.map { "\($0.value)" } ?? "none"
    }
}
