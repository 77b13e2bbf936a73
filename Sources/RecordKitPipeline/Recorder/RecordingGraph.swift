import Dispatch
import RecordKit
import RecordKitCapture
import RecordKitMedia
import RecordKitSupport
import Synchronization

/// The running parts of one recording, wired: screen capture, the audio streams and their
/// ``AudioGraph``, one encoder stage per distinct route, the ``Dispatcher`` and one
/// ``HandlerRunner`` per handler that accepted the broadcast. Built by ``RecordingGraphBuilder``.
///
/// Threading: created, started, finished and torn down on the recorder's control queue; the
/// counters it reports may be read from any thread.
final class RecordingGraph: @unchecked Sendable {
    let capture: any VideoSource
    /// The capture again when it composites a camera (its live switch), else nil.
    let camera: CameraOverlaySource?
    /// The audio source (``AudioSourceRegistry``): its streams and connection.
    let audio: any AudioSource
    /// The audio tracks that really record (`audioApp`, `audioMic`).
    let audioTracks: [SampleBufferType]
    let audioGraph: AudioGraph
    let videoStages: [VideoEncodeStage]
    let audioStages: [AudioEncodeStage]
    let dispatcher: Dispatcher
    let contexts: [HandlerContext]
    /// Where each raw or encoded video frame goes (one entry per distinct video route).
    let videoSinks: [@Sendable (_ frame: CapturedFrame, _ captureNs: Int64, _ slotNs: Int64) -> Void]
    private var silenceTimer: DispatchSourceTimer?

    init(capture: any VideoSource, camera: CameraOverlaySource? = nil, audio: any AudioSource,
         audioTracks: [SampleBufferType], audioGraph: AudioGraph, videoStages: [VideoEncodeStage], audioStages: [AudioEncodeStage],
         dispatcher: Dispatcher, contexts: [HandlerContext],
         videoSinks: [@Sendable (_ frame: CapturedFrame, _ captureNs: Int64, _ slotNs: Int64) -> Void]) {
        self.capture = capture
        self.camera = camera
        self.audio = audio
        self.audioTracks = audioTracks
        self.audioGraph = audioGraph
        self.videoStages = videoStages
        self.audioStages = audioStages
        self.dispatcher = dispatcher
        self.contexts = contexts
        self.videoSinks = videoSinks
    }

    /// Starts capturing: every frame goes through `timeline` to the video sinks; `onFirstFrame`
    /// runs once, with the first frame, before it is mapped (it starts the timeline).
    func start(timeline: Timeline, onFirstFrame: @escaping @Sendable (CapturedFrame) -> Void) {
        let sinks = videoSinks
        let first = Atomic<Bool>(false)
        capture.start { frame in
            if !first.exchange(true, ordering: .acquiringAndReleasing) { onFirstFrame(frame) }
            // Content time decides what is cut (paused spans); the tick's due time decides the slot.
            guard let b = timeline.broadcastTime(ofCapture: frame.captureTime) else { return }
            let slot = timeline.broadcastTime(ofCapture: frame.scheduledTime) ?? b
            for sink in sinks { sink(frame, b, slot) }
        }
        if !audioTracks.isEmpty {
            let graph = audioGraph
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "recordkit.audio.silence"))
            timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(50))
            timer.setEventHandler {
                // A source that delivered nothing for 250 ms is silent: fill so the timeline has no hole.
                graph.fillSilence(until: timeline.now(MonotonicClock.nanoseconds()) - 250_000_000)
            }
            timer.resume()
            silenceTimer = timer
        }
    }

    /// Stops capture, completes every stream up to broadcast time `endNs`, drains the encoders
    /// and finishes every handler (telling them first when the recording is discarded).
    /// Returns once every `broadcastFinished()` returned.
    func finish(at endNs: Int64, discarding: Bool) {
        stopSources()
        // Audio as long as the video: silence up to the end, then the last partial block.
        audioGraph.finish(at: endNs)
        for stage in videoStages { stage.finish(at: endNs) }
        for stage in audioStages { stage.finish() }
        if discarding { for c in contexts { c.markDiscarding() } }
        dispatcher.flush()
        let group = DispatchGroup()
        for runner in dispatcher.runners {
            group.enter()
            runner.finish { group.leave() }
        }
        group.wait()
        teardown()
    }

    /// Stops capture and audio and closes the audio connection. Idempotent.
    func teardown() {
        stopSources()
        audio.close()
    }

    private func stopSources() {
        capture.stop()
        audio.stop()
        silenceTimer?.cancel()
        silenceTimer = nil
    }

    /// Frames lost before any handler: pool exhausted, or an encoder behind.
    var framesDropped: Int64 {
        capture.statistics.droppedPoolExhausted + videoStages.reduce(0) { $0 + $1.dropped }
    }
}
