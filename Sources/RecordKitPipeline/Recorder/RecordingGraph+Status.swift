import RecordKit
import RecordKitCapture

extension RecordingGraph {
    /// The capture half of the recorder's snapshot: the capture's own counters, frames dropped,
    /// the rate over wall time since `startNs` (capture keeps ticking while paused), the video
    /// encoders' conversion, encode and skip counts, and the audio tracks, offsets and levels.
    /// `now` is CLOCK_MONOTONIC nanoseconds (the end of the recording once it ended).
    func captureSnapshot(now: UInt64, startNs: UInt64, frameRateMode: FrameRateMode) -> CaptureSnapshot {
        var snapshot = CaptureSnapshot()
        let stats = capture.statistics
        snapshot.counters = stats
        snapshot.frameRateMode = frameRateMode
        snapshot.framesDropped = framesDropped
        snapshot.width = capture.width
        snapshot.height = capture.height
        // Capture keeps ticking while paused (its frames are dropped at the timeline), so the
        // rate is over wall time.
        let wall = Double(now - min(now, startNs)) / 1e9
        snapshot.fps = wall > 0 && startNs > 0 ? Double(stats.captured) / max(wall, 0.001) : 0
        snapshot.conversions = videoStages.reduce(0) { $0 + $1.conversions }
        snapshot.convertedRows = videoStages.reduce(0) { $0 + $1.convertedRows }
        snapshot.encodedFrames = videoStages.reduce(0) { $0 + $1.encoded }
        snapshot.skippedFrames = videoStages.reduce(0) { $0 + $1.skipped }
        snapshot.audioTracks = audioTracks
        snapshot.audioOffsetMs = audioGraph.offsetsMs
        snapshot.audioLevelsDb = audioGraph.levels.levelsDb
        snapshot.audioMuted = audioTracks.isEmpty ? nil : audioGraph.muteSwitch.mutedNames
        if let camera {
            snapshot.camera = camera.cameraName
            snapshot.cameraEnabled = camera.cameraSwitch.isEnabled
            snapshot.cameraLost = camera.cameraEndReason
            snapshot.cameraFormat = camera.cameraFormat.isEmpty ? nil : camera.cameraFormat
            snapshot.cameraSkipped = camera.cameraSkipped
        }
        return snapshot
    }
}
