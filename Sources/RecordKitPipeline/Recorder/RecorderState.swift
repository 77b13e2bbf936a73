/// The lifecycle of a recording (DESIGN.md): `idle → starting → recording ⇄ paused →
/// finishing → finished | discarded | failed`.
public enum RecorderState: String, Sendable, Codable {
    /// Not started.
    case idle
    /// Opening capture sources, encoders and handlers.
    case starting
    /// Capturing and delivering.
    case recording
    /// Capturing nothing; broadcast time stands still.
    case paused
    /// Draining encoders and finalizing handlers.
    case finishing
    /// Ended normally; results are where handlers said.
    case finished
    /// Ended by discard; every artifact was deleted.
    case discarded
    /// Ended because of an error (every handler failed, or capture broke).
    case failed

    /// Whether the recording has ended.
    public var isTerminal: Bool { self == .finished || self == .discarded || self == .failed }
}

/// One state transition, with why it happened.
public struct RecorderEvent: Sendable, Codable {
    /// The state entered (for handler events, the state the recording is in).
    public var state: RecorderState
    /// Why: "user", "window hidden", "handler 'file' failed: …", ….
    public var reason: String
    /// Broadcast time of the event, in seconds.
    public var time: Double
    /// The handler concerned, for handler events.
    public var handler: String?

    /// Creates an event.
    public init(state: RecorderState, reason: String, time: Double, handler: String? = nil) {
        self.state = state
        self.reason = reason
        self.time = time
        self.handler = handler
    }
}

/// Why a recording could not start or failed; `kind` maps to a documented exit code.
public struct RecorderError: Error, Sendable, CustomStringConvertible {
    /// Categories of failure.
    public enum Kind: String, Sendable, Codable {
        /// Malformed arguments (a region that does not parse, a setup value of the wrong type).
        case badArgument
        /// The X display, the audio server or the window is not there.
        case unavailable
        /// The output cannot be created (unwritable path, existing file).
        case cannotCreateOutput
        /// The operation does not fit the state (pause while idle…).
        case invalidState
        /// Something broke while recording.
        case failed
    }
    /// The category.
    public var kind: Kind
    /// What failed, with what input, and what to do.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// Capture counters for status output.
public struct CaptureStatus: Sendable, Codable {
    /// Frames grabbed from the X server.
    public var framesCaptured: Int64 = 0
    /// Frames lost because every pooled buffer was still in use, or the encoder was behind.
    public var framesDropped: Int64 = 0
    /// Capture ticks missed because the capture thread woke late.
    public var lateTicks: Int64 = 0
    /// Frames per second actually captured, averaged since start.
    public var fps: Double = 0
    /// Output frame size.
    public var width: Int = 0
    /// Output frame size.
    public var height: Int = 0
    /// Audio tracks recorded (`audioApp`, `audioMic`).
    public var audioTracks: [String] = []
    /// Measured audio/video offset per audio track in milliseconds: how far the track's samples
    /// sit from where their capture timestamps (on the video's clock) put them, smoothed;
    /// positive means audio late. Offsets beyond 5 ms are corrected as they build up.
    public var audioOffsetMs: [String: Double] = [:]
    /// Damage-driven capture counters (grabs, conversions, damaged area); nil before capture starts.
    public var damage: DamageStatus?
}

/// A snapshot of a recording, as `recordctl status` shows it.
public struct RecorderStatus: Sendable, Codable {
    /// The lifecycle state.
    public var state: RecorderState
    /// Recorded (broadcast) time in seconds: wall time minus paused time.
    public var recordedSeconds: Double
    /// Paused time in seconds.
    public var pausedSeconds: Double
    /// Capture counters.
    public var capture: CaptureStatus
    /// Every handler.
    public var handlers: [HandlerSnapshot]
    /// Warnings raised while starting (e.g. "no PulseAudio server: recording video only").
    public var warnings: [String]
    /// How many H.264 encoders run (one per distinct setting).
    public var videoEncoders: Int
}
