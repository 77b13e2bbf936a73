import RecordKit

extension RecordingService {
    /// `audio-switch`: the recording's microphone (`track` "mic") or app audio ("app") switched
    /// off (silence, no gap) or on, at the current instant; the recorder publishes the
    /// `mic-off`/`mic-on` (`app-audio-off`/`app-audio-on`) event. Answers with the switch's
    /// broadcast `time` and the recording's state; `enabled` is the track's state afterwards.
    func switchAudio(_ options: CommandOptions) throws(ControlError) -> ControlResult {
        let track: SampleBufferType
        switch options.track ?? "mic" {
        case "mic": track = .audioMic
        case "app": track = .audioApp
        case let other: throw ControlError(.badArgument, "unknown audio track '\(other)': use \"mic\" or \"app\"")
        }
        guard let enabled = options.enabled else {
            throw ControlError(.badArgument, "audio-switch needs \"enabled\": true (record the source) or false (silence)")
        }
        let active = try current()
        var r = ControlResult()
        r.time = try active.session.setAudioEnabled(enabled, track: track)
        r.state = active.session.state.rawValue
        return r
    }
}
