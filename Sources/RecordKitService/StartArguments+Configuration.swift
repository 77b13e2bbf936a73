import RecordKitCapture
import RecordKitPipeline

extension StartArguments {
    /// The recording configuration these arguments describe; malformed values are `bad_argument`.
    public func recordingConfiguration() throws(ControlError) -> RecordingConfiguration {
        guard (1...120).contains(fps) else { throw ControlError("bad_argument", "fps must be between 1 and 120, got \(fps)") }
        if region != nil && window != nil { throw ControlError("bad_argument", "a region and a window cannot be recorded together") }
        var target = CaptureTarget.screen
        if let region {
            do throws(CaptureError) { target = .region(try CaptureRect.parse(region)) } catch {
                throw ControlError("bad_argument", error.message)
            }
        }
        if let window { target = .window(WindowSelector.parse(window)) }
        var configuration = RecordingConfiguration(
            screen: ScreenCaptureConfiguration(display: display, target: target, framesPerSecond: fps, showsCursor: !noCursor),
            appAudio: noAppAudio ? nil : (appSink.map { .sinkMonitor($0) } ?? .defaultSinkMonitor),
            micAudio: noMic ? nil : (micSource.map { .source($0) } ?? .defaultSource),
            audioServer: audioServer, requireAudio: requireAudio)
        try applySources(to: &configuration)
        return configuration
    }

    /// The pause-on-background policy; an unknown name is `bad_argument`.
    public func backgroundPolicy() throws(ControlError) -> PauseOnBackgroundPolicy {
        guard let p = PauseOnBackgroundPolicy(rawValue: pauseOnBackground) else {
            throw ControlError("bad_argument", "--pause-on-background must be hidden, unfocused or never, got '\(pauseOnBackground)'")
        }
        return p
    }
}

extension RecorderError {
    /// The protocol error for a recorder error.
    public var controlError: ControlError {
        switch kind {
        case .badArgument: return ControlError("bad_argument", message)
        case .unavailable: return ControlError("unavailable", message)
        case .cannotCreateOutput: return ControlError("cannot_create_output", message)
        case .invalidState: return ControlError("invalid_state", message)
        case .failed: return ControlError("failed", message)
        }
    }
}
