import RecordKit
import RecordKitCapture
import RecordKitSupport

/// The status snapshot.
extension Recorder {
    /// A snapshot of the recording, taken under the recorder's lock (never waits for a
    /// lifecycle change in progress). The pipeline's own value: the service translates it.
    package var status: RecordingSnapshot {
        let (lifecycle, graph, warnings, startNs, endNs) = shared.withLock { ($0.lifecycle, $0.graph, $0.warnings, $0.startNs, $0.endNs) }
        let now = endNs ?? MonotonicClock.nanoseconds()
        let capture = graph?.captureSnapshot(now: now, startNs: startNs, frameRateMode: configuration.screen.frameRateMode) ?? CaptureSnapshot()
        return RecordingSnapshot(
            state: lifecycle.state, pauseReason: lifecycle.pauseReason,
            recordedSeconds: startNs == 0 ? 0 : Double(timeline.now(now)) / 1e9,
            pausedSeconds: Double(timeline.pausedTime(now: now)) / 1e9,
            capture: capture, handlers: graph?.dispatcher.runners.map(\.snapshot) ?? [],
            warnings: warnings, videoEncoders: graph?.videoStages.count ?? 0, audioEncoders: graph?.audioStages.count ?? 0)
    }
}
