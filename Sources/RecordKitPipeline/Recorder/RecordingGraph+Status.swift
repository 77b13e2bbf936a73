import RecordKit
import RecordKitCapture

extension RecordingGraph {
    /// The capture counters of `recordctl status`: frames captured and dropped, late ticks, the
    /// rate over wall time since `startNs` (capture keeps ticking while paused), audio tracks,
    /// offsets and levels, and what damage-driven capture saved (``DamageStatus``). `now` is
    /// CLOCK_MONOTONIC nanoseconds (the end of the recording once it ended).
    func captureStatus(now: UInt64, startNs: UInt64, frameRateMode: FrameRateMode) -> CaptureStatus {
        var status = CaptureStatus()
        let stats = capture.statistics
        status.framesCaptured = stats.captured
        status.framesDropped = framesDropped
        status.lateTicks = stats.lateTicks
        status.width = capture.width
        status.height = capture.height
        // Capture keeps ticking while paused (its frames are dropped at the timeline), so the
        // rate is over wall time.
        let wall = Double(now - min(now, startNs)) / 1e9
        status.fps = wall > 0 && startNs > 0 ? Double(stats.captured) / max(wall, 0.001) : 0
        status.audioTracks = audioTracks.map(\.rawValue)
        status.audioOffsetMs = audioGraph.offsetsMs
        status.audioLevelsDb = audioGraph.levels.levelsDb
        status.audioMuted = audioTracks.isEmpty ? nil : audioGraph.muteSwitch.mutedNames
        if let camera {
            status.camera = camera.cameraName
            status.cameraEnabled = camera.cameraSwitch.isEnabled
            status.cameraLost = camera.cameraEndReason
        }
        status.damage = DamageStatus(statistics: stats, mode: frameRateMode,
                                      conversions: videoStages.reduce(0) { $0 + $1.conversions },
                                      convertedRows: videoStages.reduce(0) { $0 + $1.convertedRows },
                                      encodedFrames: videoStages.reduce(0) { $0 + $1.encoded },
                                      skippedFrames: videoStages.reduce(0) { $0 + $1.skipped })
        return status
    }
}
