import RecordKitCapture

extension CaptureError {
    /// The recorder error for a capture error.
    var recorderError: RecorderError {
        switch kind {
        case .badRegion, .unknownSource: return RecorderError(.badArgument, message)
        case .noDisplay, .windowNotFound, .windowGone, .noAudioServer, .audioSourceNotFound, .portalUnavailable,
             .cameraNotFound, .cameraUnavailable:
            return RecorderError(.unavailable, message)
        case .xError, .audioError, .portalError: return RecorderError(.failed, message)
        }
    }
}
