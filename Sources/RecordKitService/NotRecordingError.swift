/// The `not_recording` error, saying how the last recording ended when it failed by itself: a
/// failure the user must not miss just because the recording was already over (every handler
/// failed on a full disk, the X server went away) when they asked to stop it.
enum NotRecordingError {
    /// The error for a command that needs a recording, given the last one.
    static func make(last: ServiceStatus.Ended?) -> ControlError {
        var message = "nothing is recording; start one with `recordctl start`"
        if let last, last.state == "failed" {
            message += ". The last recording (\(last.id)) failed: \(last.reason ?? "unknown reason")"
            if let errors = last.errors, !errors.isEmpty { message += "; " + errors.joined(separator: "; ") }
        }
        return ControlError(.notRecording, message)
    }
}
