import RecordKit
import RecordKitCapture

/// The capture half of a ``RecordingSnapshot``: the screen capture's own counters, what the
/// video encoders converted, encoded and skipped, and the audio tracks' placement and levels.
package struct CaptureSnapshot: Sendable {
    /// The screen capture's counters (grabs, damage, late ticks, …); nil before capture started.
    package var counters: ScreenCaptureStatistics?
    /// The frame rate mode the capture runs in.
    package var frameRateMode: FrameRateMode = .constant
    /// Frames lost: pool exhausted at capture, or dropped before an encoder that was behind.
    package var framesDropped: Int64 = 0
    /// Frames per second captured, over wall time since the start (capture ticks while paused).
    package var fps: Double = 0
    /// Output frame width in pixels.
    package var width = 0
    /// Output frame height in pixels.
    package var height = 0
    /// BGR0→yuv420p conversions that converted something, summed over the H.264 encoders.
    package var conversions: Int64 = 0
    /// Picture rows converted, summed over the H.264 encoders.
    package var convertedRows: Int64 = 0
    /// Frames given to the video encoders, summed over them.
    package var encodedFrames: Int64 = 0
    /// Unchanged frame slots filled with a spliced skip picture instead of an encode.
    package var skippedFrames: Int64 = 0
    /// The audio tracks recorded.
    package var audioTracks: [SampleBufferType] = []
    /// Each track's smoothed placement error in milliseconds (positive: audio late), by type name.
    package var audioOffsetMs: [String: Double] = [:]
    /// Each track's current level in dBFS, by type name; nil before audio runs.
    package var audioLevelsDb: [String: Double]?
    /// The tracks switched off (recording silence), by type name; nil without audio.
    package var audioMuted: [String]?
    /// The camera composited into the picture: its name; nil without a camera.
    package var camera: String?
    /// Whether the camera's corner is drawn now; nil without a camera.
    package var cameraEnabled: Bool?
    /// Why the camera stopped delivering while recording, or nil.
    package var cameraLost: String?
    /// What the camera sends and at what size ("MJPEG 640x480"); nil without a camera or when not known.
    package var cameraFormat: String?
    /// Camera pictures skipped (a JPEG that does not decode) and why the last was; nil without a camera.
    package var cameraSkipped: (count: Int64, lastReason: String?)?

    /// Frames grabbed and delivered (zero before capture started).
    package var framesCaptured: Int64 { counters?.captured ?? 0 }

    /// Nothing captured yet.
    package init() {}
}
