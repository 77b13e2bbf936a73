import RecordKitCapture
import RecordKitPipeline

extension StartArguments {
    /// Applies `frameRateMode`, `monitor` and `appAudioFrom` (issue 11); malformed or
    /// contradictory values are `bad_argument`.
    func applySources(to configuration: inout RecordingConfiguration) throws(ControlError) {
        guard let mode = FrameRateMode(rawValue: frameRateMode) else {
            throw ControlError(.badArgument, "--frame-rate-mode must be constant or variable, got '\(frameRateMode)'")
        }
        configuration.screen.frameRateMode = mode
        if let monitor {
            guard region == nil, window == nil else {
                throw ControlError(.badArgument, "--monitor cannot be combined with --region or --window")
            }
            configuration.screen.target = .monitor(MonitorSelector.parse(monitor))
        }
        if let appAudioFrom {
            guard !noAppAudio, appSink == nil else {
                throw ControlError(.badArgument, "--app-audio-from cannot be combined with --no-app-audio or --app-sink")
            }
            configuration.appAudio = .application(ApplicationSelector.parse(appAudioFrom))
        }
    }
}
