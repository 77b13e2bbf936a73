import RecordKitSupport
import RecordKit

extension Recorder {
    /// ReplayKit's `isMicrophoneEnabled` set on a running recording, for the microphone
    /// (`.audioMic`) or the application audio (`.audioApp`): while off, the track (and its share
    /// of a mixed track) records silence, with no gap and no timestamp jump. The switch takes
    /// effect at the current instant of the capture clock; each change is an event of kind
    /// `mic-off`/`mic-on` (`app-audio-off`/`app-audio-on`) with its broadcast time. Returns that
    /// time in seconds (paused: the time the pause began). Switching to the state the track is
    /// already in changes nothing and sends no event. Throws ``RecorderError/Kind/invalidState``
    /// unless recording or paused with that track.
    package func setAudioEnabled(_ enabled: Bool, track: SampleBufferType) throws(RecorderError) -> Double {
        let result: Result<Double, RecorderError> = control.sync {
            let state = self.state
            guard state == .recording || state == .paused, let audio else {
                return .failure(RecorderError(.invalidState, "switching audio needs a recording in progress; the recording is \(state.rawValue)"))
            }
            let name = track == .audioMic ? "microphone" : "app audio"
            guard audio.tracks.contains(track) else {
                return .failure(RecorderError(.invalidState, "this recording has no \(name) track (started without it, or its source was missing)"))
            }
            let nowNs = MonotonicClock.nanoseconds()
            let time = Double(max(0, timeline.now(nowNs))) / 1e9
            if audio.graph.muteSwitch.set(track, muted: !enabled, atNs: nowNs) {
                let kind = (track == .audioMic ? "mic-" : "app-audio-") + (enabled ? "on" : "off")
                onEvent(RecorderEvent(state: state, reason: "\(name) \(enabled ? "on" : "off")", time: time, kind: kind))
            }
            return .success(time)
        }
        return try result.get()
    }

    /// Whether `track` records its source now (false: switched off, or no such track).
    package func isAudioEnabled(_ track: SampleBufferType) -> Bool {
        guard let audio, audio.tracks.contains(track) else { return false }
        return !audio.graph.muteSwitch.isMuted(track)
    }
}
