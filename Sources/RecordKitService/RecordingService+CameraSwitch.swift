extension RecordingService {
    /// `camera-switch`: the recording's camera corner switched off (hidden) or on, at the
    /// current instant; the recorder publishes the `camera-off`/`camera-on` event. Answers
    /// with the switch's broadcast `time` and the recording's state.
    func switchCamera(_ options: CommandOptions) throws(ControlError) -> ControlResult {
        guard let enabled = options.enabled else {
            throw ControlError(.badArgument, "camera-switch needs \"enabled\": true (show the camera) or false (hide it)")
        }
        let active = try current()
        var r = ControlResult()
        r.time = try active.session.setCameraEnabled(enabled)
        r.state = active.session.state.rawValue
        return r
    }
}
