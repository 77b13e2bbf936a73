import RecordKitControl

/// A recording at one instant, as the pipeline reports it (``Recorder/status``): the pipeline's
/// own value, which the service translates into the control protocol's `RecorderStatus`. Only
/// the lifecycle's names (`RecorderState`, `HandlerState`) are shared with the protocol.
package struct RecordingSnapshot: Sendable {
    /// The lifecycle state.
    package var state: RecorderState
    /// Why the recording is paused, when it is: "user", or what sent it to the background.
    package var pauseReason: String?
    /// Recorded (broadcast) time in seconds: wall time minus paused time.
    package var recordedSeconds: Double
    /// Paused time in seconds.
    package var pausedSeconds: Double
    /// Capture, conversion and audio counters.
    package var capture: CaptureSnapshot
    /// Every handler, in the order they were added.
    package var handlers: [HandlerRunReport]
    /// Warnings raised so far (e.g. "no PulseAudio server: recording video only").
    package var warnings: [String]
    /// Video encoders running (one per distinct setting).
    package var videoEncoders: Int
    /// Audio encoders running (one per distinct track and setting).
    package var audioEncoders: Int

    /// A snapshot of these values.
    package init(state: RecorderState, pauseReason: String?, recordedSeconds: Double, pausedSeconds: Double, capture: CaptureSnapshot,
                 handlers: [HandlerRunReport], warnings: [String], videoEncoders: Int, audioEncoders: Int) {
        self.state = state
        self.pauseReason = pauseReason
        self.recordedSeconds = recordedSeconds
        self.pausedSeconds = pausedSeconds
        self.capture = capture
        self.handlers = handlers
        self.warnings = warnings
        self.videoEncoders = videoEncoders
        self.audioEncoders = audioEncoders
    }
}
