import RecordKitCapture
import RecordKitSupport

extension Recorder {
    /// ReplayKit's `isCameraEnabled` set on a running recording: the camera's corner disappears
    /// (off) or comes back (on) from the current instant of the capture clock, in every output.
    /// Each change is an event of kind `camera-off`/`camera-on` with its broadcast time; returns
    /// that time in seconds (paused: the time the pause began). Switching to the state the
    /// camera is already in changes nothing and sends no event. Throws
    /// ``RecorderError/Kind/invalidState`` unless recording or paused with a camera (`--camera`).
    package func setCameraEnabled(_ enabled: Bool) throws(RecorderError) -> Double {
        let result: Result<Double, RecorderError> = control.sync {
            let state = self.state
            guard state == .recording || state == .paused else {
                return .failure(RecorderError(.invalidState, "switching the camera needs a recording in progress; the recording is \(state.rawValue)"))
            }
            guard let camera = cameraOverlay else {
                return .failure(RecorderError(.invalidState, "this recording has no camera: start it with --camera"))
            }
            let nowNs = MonotonicClock.nanoseconds()
            let time = Double(max(0, timeline.now(nowNs))) / 1e9
            if camera.cameraSwitch.set(enabled: enabled, atNs: nowNs) {
                onEvent(RecorderEvent(state: state, reason: "camera \(enabled ? "on" : "off")", time: time, kind: enabled ? "camera-on" : "camera-off"))
            }
            return .success(time)
        }
        return try result.get()
    }
}
