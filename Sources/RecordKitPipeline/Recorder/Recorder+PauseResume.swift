import Dispatch
import RecordKit
import RecordKitCapture
import RecordKitSupport

/// Pausing and resuming the whole recording: the user's pause and the background's (``BackgroundPauser``).
extension Recorder {
    /// Pauses at the user's request: nothing captured from now on reaches a handler; handlers
    /// get `broadcastPaused()`. Pausing a recording the background already paused makes the
    /// pause the user's too (it outlasts the background).
    package func pause(reason: String = "user") throws(RecorderError) {
        try onControl { () throws(RecorderError) in
            let effect = try shared.withLock { s throws(RecorderError) in try s.lifecycle.userPause() }
            apply(effect, reason: reason)
        }
    }

    /// Resumes after ``pause(reason:)``; broadcast time goes on where it stopped. Throws while
    /// the background holds the pause (the recording resumes by itself when that ends).
    package func resume(reason: String = "user") throws(RecorderError) {
        try onControl { () throws(RecorderError) in
            let effect = try shared.withLock { s throws(RecorderError) in try s.lifecycle.userResume() }
            apply(effect, reason: reason)
        }
    }

    /// The recorded window went to the background or came back, or the screen was locked: pause or resume (on the control queue).
    func backgroundChanged(_ change: BackgroundChange) {
        control.async { [self] in
            switch change {
            case .background(let reason):
                apply(shared.withLock { $0.lifecycle.background(reason.description) }, reason: reason.description)
            case .foreground(let previous):
                apply(shared.withLock { $0.lifecycle.foreground() }, reason: "\(previous.description) ended")
            case .windowDestroyed:
                break  // The capture notices too and finishes the recording with that reason.
            }
        }
    }

    /// Carries out a pause or resume the lifecycle decided (control queue).
    func apply(_ effect: RecorderLifecycle.Effect, reason: String) {
        let graph = shared.withLock { $0.graph }
        switch effect {
        case .none:
            return
        case .paused:
            timeline.pause(at: MonotonicClock.nanoseconds())
            graph?.dispatcher.paused()
            emit(state: .paused, reason: reason)
        case .resumed:
            timeline.resume(at: MonotonicClock.nanoseconds())
            graph?.dispatcher.resumed()
            emit(state: .recording, reason: reason)
        }
    }
}
