import RecordKit
import RecordKitSupport

extension Recorder {
    /// Adds a marker titled `title` at the current broadcast time (paused: the time the pause
    /// began), as ReplayKit's `broadcastAnnotated(withApplicationInfo:)`: every handler gets
    /// ``BroadcastSampleHandler/broadcastAnnotated(_:)``, queued behind the samples released
    /// before it, in order with pause and resume (it goes through the control queue). Returns the
    /// annotation. Throws ``RecorderError/Kind/invalidState`` unless recording or paused.
    package func mark(title: String, applicationInfo: [String: String] = [:]) throws(RecorderError) -> BroadcastAnnotation {
        let result: Result<BroadcastAnnotation, RecorderError> = control.sync {
            let state = self.state
            guard state == .recording || state == .paused, let dispatcher else {
                return .failure(RecorderError(.invalidState, "a marker needs a recording in progress; the recording is \(state.rawValue)"))
            }
            let annotation = BroadcastAnnotation(title: title, time: .nanoseconds(max(0, timeline.now(MonotonicClock.nanoseconds()))),
                                                 applicationInfo: applicationInfo)
            dispatcher.annotated(annotation)
            return .success(annotation)
        }
        return try result.get()
    }
}
