/// Capture counters for status output.
package struct CaptureStatus: Sendable, Codable {
    /// Frames grabbed from the X server.
    package var framesCaptured: Int64 = 0
    /// Frames lost because every pooled buffer was still in use, or the encoder was behind.
    package var framesDropped: Int64 = 0
    /// Capture ticks missed because the capture thread woke late.
    package var lateTicks: Int64 = 0
    /// Frames per second actually captured, averaged since start.
    package var fps: Double = 0
    /// Output frame size.
    package var width: Int = 0
    /// Output frame size.
    package var height: Int = 0
    /// Audio tracks recorded (`audioApp`, `audioMic`).
    package var audioTracks: [String] = []
    /// Measured audio/video offset per audio track in milliseconds: how far the track's samples
    /// sit from where their capture timestamps (on the video's clock) put them, smoothed;
    /// positive means audio late. Offsets beyond 5 ms are corrected as they build up.
    package var audioOffsetMs: [String: Double] = [:]
    /// Each audio track's current level in dBFS (RMS of the latest chunk, loud peaks held
    /// 150 ms; -100 is silence), by type name: what a level meter shows. Nil before audio runs.
    package var audioLevelsDb: [String: Double]?
    /// The audio tracks switched off (recording silence), by type name (`audioMic`, `audioApp`);
    /// empty when every track records; nil without audio or from an older service.
    package var audioMuted: [String]?
    /// The camera composited into the picture (`--camera`): its name; nil without a camera.
    package var camera: String?
    /// Whether the camera's corner is drawn now (`recordctl camera off|on`); nil without a camera.
    package var cameraEnabled: Bool?
    /// Why the camera stopped delivering while recording (its corner is left out), or nil.
    package var cameraLost: String?
    /// What the camera sends and at what size ("MJPEG 640x480", "YUY2 320x240"); nil without a
    /// camera or when not known.
    package var cameraFormat: String?
    /// Camera pictures skipped since the recording started (a JPEG that does not decode); nil
    /// without a camera.
    package var cameraSkipped: Int64?
    /// Why the last skipped camera picture was skipped; nil when none was.
    package var cameraSkipReason: String?
    /// Damage-driven capture counters (grabs, conversions, damaged area); nil before capture starts.
    package var damage: DamageStatus?

    /// Zero counters, no tracks.
    package init() {}
}

/// A snapshot of a recording, as `recordctl status` shows it.
package struct RecorderStatus: Sendable, Codable {
    /// The lifecycle state.
    package var state: RecorderState
    /// Why the recording is paused, when it is: "user", or what sent it to the background
    /// ("window minimized", "screen locked").
    package var pauseReason: String?
    /// Recorded (broadcast) time in seconds: wall time minus paused time.
    package var recordedSeconds: Double
    /// Paused time in seconds.
    package var pausedSeconds: Double
    /// Capture counters.
    package var capture: CaptureStatus
    /// Every handler.
    package var handlers: [HandlerSnapshot]
    /// Warnings raised while starting (e.g. "no PulseAudio server: recording video only").
    package var warnings: [String]
    /// How many video encoders run (one per distinct setting).
    package var videoEncoders: Int
    /// How many audio encoders run: one per distinct track and setting; a recording with one
    /// audio track encodes it once, whether handlers ask for it as that track or as "mixed".
    /// Nil from a service older than this field.
    package var audioEncoders: Int?

    /// Creates a snapshot.
    package init(state: RecorderState, pauseReason: String?, recordedSeconds: Double, pausedSeconds: Double,
                capture: CaptureStatus, handlers: [HandlerSnapshot], warnings: [String], videoEncoders: Int, audioEncoders: Int? = nil) {
        self.audioEncoders = audioEncoders
        self.state = state
        self.pauseReason = pauseReason
        self.recordedSeconds = recordedSeconds
        self.pausedSeconds = pausedSeconds
        self.capture = capture
        self.handlers = handlers
        self.warnings = warnings
        self.videoEncoders = videoEncoders
    }
}
