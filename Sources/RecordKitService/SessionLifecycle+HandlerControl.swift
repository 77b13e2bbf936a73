import RecordKit

extension SessionLifecycle {
    /// Lets the recording's handlers (the preview page's buttons, through
    /// ``BroadcastControlling``) pause, resume, stop, discard it and switch its microphone and camera exactly as `recordctl`
    /// does: the same serialized commands, journal and conclusion.
    func installControlHandler(on session: RecordingSession) {
        session.recorder.setControlHandler { [weak self] request, completion in
            guard let self else { return completion(BroadcastError(.internalError, "the service is gone")) }
            do throws(ControlError) {
                switch request {
                case .pause: _ = try locked { () throws(ControlError) in try pause() }
                case .resume: _ = try locked { () throws(ControlError) in try resume() }
                case .stop: _ = try locked { () throws(ControlError) in try finish(discard: false) }
                case .discard: _ = try locked { () throws(ControlError) in try finish(discard: true) }
                case .micOff, .micOn: _ = try current().session.setAudioEnabled(request == .micOn, track: .audioMic)
                case .cameraOff, .cameraOn: _ = try current().session.setCameraEnabled(request == .cameraOn)
                }
                completion(nil)
            } catch {
                completion(BroadcastError(.invalidSetup, error.message))
            }
        }
    }
}
