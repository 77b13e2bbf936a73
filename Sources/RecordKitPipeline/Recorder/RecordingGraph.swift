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
    /// Where a captured frame goes: its capture time and its slot, in broadcast nanoseconds.
    typealias VideoSink = @Sendable (_ frame: CapturedFrame, _ captureNs: Int64, _ slotNs: Int64) -> Void

    let capture: any VideoSource
    /// The capture again when it composites a camera (its live switch), else nil.
    let camera: CameraOverlaySource?
    /// The audio source (``AudioSourceRegistry``): its streams and connection.
    let audio: any AudioSource
    /// The audio tracks that really record (`audioApp`, `audioMic`).
    let audioTracks: [SampleBufferType]
    let audioGraph: AudioGraph
    let dispatcher: Dispatcher
    /// Opens the encoders of routes an attached output is the first to want (``RecordingGraphBuilder``).
    let encoderOpener: EncoderOpener
    /// The parts that change as outputs attach and detach, under one lock.
    private let parts: PartsBox
    private var silenceTimer: RepeatingThread?

    /// The encoders, handler contexts and video sinks of the outputs attached now.
    struct Parts {
        var videoStages: [VideoEncodeStage]
        /// Each may feed more routes than its own (``AudioEncodeStage/fedRoutes``).
        var audioStages: [AudioEncodeStage]
        var contexts: [HandlerContext]
        /// Where each raw or encoded video frame goes (one entry per distinct video route).
        var videoSinks: [SampleRoute: VideoSink] { didSet { updateSinkLists() } }
        /// ``videoSinks``' values of the screen's routes, kept as they change (attach, detach)
        /// so that each captured frame takes them without building an array.
        var sinkList: [VideoSink] = []
        /// Those of the camera track's routes (``SampleBufferType/camera``).
        var cameraSinkList: [VideoSink] = []

        mutating func updateSinkLists() {
            sinkList = videoSinks.filter { $0.key.type == .video }.map(\.value)
            cameraSinkList = videoSinks.filter { $0.key.type == .camera }.map(\.value)
        }
        /// The format of every route that runs.
        var formats: [SampleRoute: FormatDescription]
    }

    init(capture: any VideoSource, camera: CameraOverlaySource? = nil, audio: any AudioSource, audioTracks: [SampleBufferType], audioGraph: AudioGraph,
         dispatcher: Dispatcher, encoderOpener: EncoderOpener, parts: Parts) {
        self.capture = capture
        self.camera = camera
        self.audio = audio
        self.audioTracks = audioTracks
        self.audioGraph = audioGraph
        self.dispatcher = dispatcher
        self.encoderOpener = encoderOpener
        var parts = parts
        parts.updateSinkLists()
        self.parts = PartsBox(parts)
    }

    /// The changing parts behind a lock, in a box that the capture callback can hold.
    private final class PartsBox: Sendable {
        let mutex: Mutex<Parts>
        init(_ parts: Parts) { mutex = Mutex(parts) }
        func withLock<T>(_ body: (inout Parts) -> T) -> T { mutex.withLock { body(&$0) } }
    }

    /// The sample types this recording produces: video, the audio tracks (and their mix), the
    /// camera track when it has one.
    var availableTypes: Set<SampleBufferType> {
        var available: Set<SampleBufferType> = [.video]
        available.formUnion(audioTracks)
        if !audioTracks.isEmpty { available.insert(.audioMixed) }
        if camera?.trackSize != nil { available.insert(.camera) }
        return available
    }

    /// The video encoder stages running now.
    var videoStages: [VideoEncodeStage] { parts.withLock { $0.videoStages } }
    /// The audio encoder stages running now.
    var audioStages: [AudioEncodeStage] { parts.withLock { $0.audioStages } }
    /// The formats of the routes that run now.
    var formats: [SampleRoute: FormatDescription] { parts.withLock { $0.formats } }
    /// The contexts of the handlers attached now.
    var contexts: [HandlerContext] { parts.withLock { $0.contexts } }

    /// The running audio encoders that can feed some of `routes` as they run: with exactly one
    /// audio track, the track and the "mixed" track are the same PCM, so an encoded route of
    /// either shares an encoder of the other with equal settings (one encode per distinct input,
    /// as at start). By route.
    func sharedAudioStages(for routes: Set<SampleRoute>) -> [SampleRoute: AudioEncodeStage] {
        guard audioTracks.count == 1, let track = audioTracks.first else { return [:] }
        let stages = audioStages
        var shared: [SampleRoute: AudioEncodeStage] = [:]
        for route in routes {
            guard case .audio(let type, .encoded(let settings)) = route, type == track || type == .audioMixed else { continue }
            shared[route] = stages.first { stage in
                guard stage.settings == settings, case .audio(let running, _) = stage.route else { return false }
                return running == track || running == .audioMixed
            }
        }
        return shared
    }

    /// Adds what an attached output brought: its context, the encoders and sinks of routes it is
    /// the first to want, and the routes running encoders feed for it too (`shared`).
    func add(context: HandlerContext, encoders: EncoderSet?, routes: Set<SampleRoute>, shared: [SampleRoute: AudioEncodeStage] = [:]) {
        parts.withLock { p in
            p.contexts.append(context)
            for (route, stage) in shared {
                stage.feed(route)
                p.formats[route] = .encoded(stage.format)
            }
            guard let encoders else { return }
            p.formats.merge(encoders.formats) { _, new in new }
            p.videoStages += encoders.videoStages
            p.audioStages += encoders.audioStages
            p.videoSinks.merge(encoders.videoSinks(for: routes)) { _, new in new }
        }
        if let encoders { audioGraph.addSinks(encoders.audioSinks(for: routes)) }
    }

    /// Stops feeding `routes` (no output wants them any more): their sinks go, and each encoder
    /// whose every route is among them is drained up to broadcast time `endNs` and closed.
    /// Drops `context`.
    func remove(context: HandlerContext, unused routes: Set<SampleRoute>, endNs: Int64) {
        let (video, audioStagesDone): ([VideoEncodeStage], [AudioEncodeStage]) = parts.withLock { p in
            p.contexts.removeAll { $0 === context }
            for route in routes {
                p.videoSinks[route] = nil
                p.formats[route] = nil
            }
            let video = p.videoStages.filter { routes.contains($0.route) }
            // An audio encoder goes once it feeds no route (it may feed a route other than its own).
            let audio = p.audioStages.filter { $0.stopFeeding(routes) }
            p.videoStages.removeAll { stage in video.contains { $0 === stage } }
            p.audioStages.removeAll { stage in audio.contains { $0 === stage } }
            return (video, audio)
        }
        audioGraph.removeSinks(for: Set(audioStagesDone.map(\.route)).union(routes.filter { if case .audio(_, .raw) = $0 { return true }; return false }))
        for stage in video { stage.finish(at: endNs) }
        for stage in audioStagesDone { stage.finish() }
    }

    /// Starts capturing: every frame goes through `timeline` to the video sinks; `onFirstFrame`
    /// runs once, with the first frame, before it is mapped (it starts the timeline).
    func start(timeline: Timeline, onFirstFrame: @escaping @Sendable (CapturedFrame) -> Void) {
        let parts = self.parts
        let first = Atomic<Bool>(false)
        // The camera track's frames come on the capture thread right after the screen frame of
        // the same tick, with its times: the timeline has started by then.
        camera?.startTrack { frame in
            guard let b = timeline.broadcastTime(ofCapture: frame.captureTime) else { return }
            let slot = timeline.broadcastTime(ofCapture: frame.scheduledTime) ?? b
            for sink in parts.withLock({ $0.cameraSinkList }) { sink(frame, b, slot) }
        }
        capture.start { frame in
            if !first.exchange(true, ordering: .acquiringAndReleasing) { onFirstFrame(frame) }
            // Content time decides what is cut (paused spans); the tick's due time decides the slot.
            guard let b = timeline.broadcastTime(ofCapture: frame.captureTime) else { return }
            let slot = timeline.broadcastTime(ofCapture: frame.scheduledTime) ?? b
            for sink in parts.withLock({ $0.sinkList }) { sink(frame, b, slot) }
        }
        if !audioTracks.isEmpty {
            let graph = audioGraph
            // A thread of its own (`rk-audio-fill`), not a Dispatch timer: a pool worker per tick
            // left the recording's thread count varying.
            let timer = RepeatingThread(name: "rk-audio-fill", firstAfterSeconds: 0.1, everySeconds: 0.05) {
                // A source that delivered nothing for 250 ms is silent: fill so the timeline has no hole.
                graph.fillSilence(until: timeline.now(MonotonicClock.nanoseconds()) - 250_000_000)
            }
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
        let (videoStages, audioStages, contexts) = parts.withLock { ($0.videoStages, $0.audioStages, $0.contexts) }
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
        silenceTimer?.stop()
        silenceTimer = nil
    }

    /// Frames lost before any handler: pool exhausted, a capture thread or an encoder behind.
    var framesDropped: Int64 {
        let capture = capture.statistics
        return capture.droppedPoolExhausted + capture.droppedBehind + videoStages.reduce(0) { $0 + $1.dropped }
    }
}
