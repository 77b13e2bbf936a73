import RecordKitCapture
import RecordKitControl
import RecordKitPipeline

// The control protocol's status values, translated from the pipeline's own snapshot: the
// pipeline reports what it counts (`RecordingSnapshot`), the service decides what goes on the
// wire (`recordctl status --json` is the encoding of these values, whatever the pipeline's
// types become).

extension RecorderStatus {
    /// The wire form of a pipeline snapshot.
    package init(_ snapshot: RecordingSnapshot) {
        self.init(state: snapshot.state, pauseReason: snapshot.pauseReason, recordedSeconds: snapshot.recordedSeconds,
                  pausedSeconds: snapshot.pausedSeconds, capture: CaptureStatus(snapshot.capture),
                  handlers: snapshot.handlers.map(HandlerSnapshot.init), warnings: snapshot.warnings,
                  videoEncoders: snapshot.videoEncoders, audioEncoders: snapshot.audioEncoders)
    }
}

extension CaptureStatus {
    /// The wire form of the capture counters; `damage` only once capture started.
    package init(_ capture: CaptureSnapshot) {
        self.init()
        framesCaptured = capture.framesCaptured
        framesDropped = capture.framesDropped
        lateTicks = capture.counters?.lateTicks ?? 0
        fps = capture.fps
        width = capture.width
        height = capture.height
        audioTracks = capture.audioTracks.map(\.rawValue)
        audioOffsetMs = capture.audioOffsetMs
        audioLevelsDb = capture.audioLevelsDb
        audioMuted = capture.audioMuted
        camera = capture.camera
        cameraEnabled = capture.cameraEnabled
        cameraLost = capture.cameraLost
        cameraFormat = capture.cameraFormat
        cameraSkipped = capture.cameraSkipped?.count
        cameraSkipReason = capture.cameraSkipped?.lastReason
        damage = capture.counters.map { counters in
            var damage = DamageStatus()
            damage.tracking = counters.damageTracking
            damage.frameRateMode = capture.frameRateMode.rawValue
            damage.grabs = counters.grabs
            damage.grabbedPixels = counters.grabbedPixels
            damage.damagedPixels = counters.damagedPixels
            damage.unchangedTicks = counters.unchangedTicks
            damage.repeatedFrames = counters.repeatedFrames
            damage.conversions = capture.conversions
            damage.convertedRows = capture.convertedRows
            damage.encodedFrames = capture.encodedFrames
            damage.skippedFrames = capture.skippedFrames
            return damage
        }
    }
}

extension HandlerSnapshot {
    /// The wire form of one handler's report.
    package init(_ report: HandlerRunReport) {
        var statistics = HandlerStatistics()
        statistics.delivered = report.statistics.delivered
        statistics.droppedVideo = report.statistics.droppedVideo
        statistics.bytesDelivered = report.statistics.bytesDelivered
        statistics.queueHighWater = report.statistics.queueHighWater
        statistics.queued = report.statistics.queued
        self.init(name: report.name, state: report.state, error: report.error, serviceInfo: report.serviceInfo, statistics: statistics,
                  paused: report.paused)
    }
}
