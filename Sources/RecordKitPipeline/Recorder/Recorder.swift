import Dispatch
import Foundation
import RecordKit
import RecordKitCapture
import RecordKitMedia
import Synchronization
import CShims

/// Records the screen and audio into a set of broadcast handlers: the equivalent of
/// `RPScreenRecorder` plus `RPBroadcastController`.
///
/// Threading: the public methods may be called from any thread; lifecycle changes are
/// serialized on a private control queue. Capture, audio and encoding run on threads and
/// serial queues of their own, never on Swift's cooperative pool. `onEvent` is called on the
/// control queue for every state transition and handler failure; it must not call back into the
/// recorder synchronously.
public final class Recorder: @unchecked Sendable {
    private let configuration: RecordingConfiguration
    private let registrations: [HandlerRegistration]
    private let onEvent: @Sendable (RecorderEvent) -> Void
    private let control = DispatchQueue(label: "recordkit.recorder.control")
    private let timeline: Timeline

    // Set up by start() on the control queue; read by status from any thread under `lock`.
    private let lock = Mutex<Shared>(Shared())
    private struct Shared {
        var state: RecorderState = .idle
        var warnings: [String] = []
        var startNs: UInt64 = 0
        var firstFrame = false
    }
    private var capture: ScreenCapture?
    private var audioConnection: PulseAudioConnection?
    private var audioStreams: [AudioCaptureStream] = []
    private var audioGraph: AudioGraph?
    private var silenceTimer: DispatchSourceTimer?
    private var dispatcher: Dispatcher?
    private var contexts: [HandlerContext] = []
    private var videoStages: [VideoEncodeStage] = []
    private var audioStages: [AudioEncodeStage] = []
    private var audioTracks: [SampleBufferType] = []
    private let firstFrame = DispatchSemaphore(value: 0)

    /// Creates a recorder for `configuration` that will feed `handlers`. Nothing runs before ``start()``.
    public init(configuration: RecordingConfiguration, handlers: [HandlerRegistration],
                onEvent: @escaping @Sendable (RecorderEvent) -> Void = { _ in }) {
        FFmpegLog.configureFromEnvironment()
        self.configuration = configuration
        self.timeline = Timeline(quantumNs: 1_000_000_000 / UInt64(max(configuration.screen.framesPerSecond, 1)))
        self.registrations = handlers
        self.onEvent = onEvent
    }

    /// The id of the recorded window (resolved from its name), when recording a window.
    public var capturedWindowID: UInt? { control.sync { capture?.windowID } }

    /// The current state.
    public var state: RecorderState { lock.withLock { $0.state } }
    /// Whether a recording is in progress (recording or paused).
    public var isRecording: Bool { [.recording, .paused].contains(state) }
    /// Whether the recording is paused.
    public var isPaused: Bool { state == .paused }

    // MARK: Start

    /// Opens capture, audio, encoders and handlers, then starts the timeline. Returns once
    /// capture runs; throws without leaving anything running when any part cannot start.
    public func start() throws(RecorderError) {
        let result: Result<Void, RecorderError> = control.sync {
            do throws(RecorderError) {
                try startOnControlQueue()
                return .success(())
            } catch {
                teardownOnControlQueue()
                setState(.failed, reason: error.message)
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Blocks until the first frame was captured (or `timeout` passed); true if it was.
    public func waitForFirstFrame(timeout: Double) -> Bool {
        if lock.withLock({ $0.firstFrame }) { return true }
        let ok = firstFrame.wait(timeout: .now() + timeout) == .success
        if ok { firstFrame.signal() }
        return ok
    }

    private func startOnControlQueue() throws(RecorderError) {
        guard state == .idle else { throw RecorderError(.invalidState, "this recorder was already started") }
        setState(.starting, reason: "start requested")

        // 1. Screen.
        let capture: ScreenCapture
        do throws(CaptureError) { capture = try ScreenCapture(configuration: configuration.screen) } catch { throw Self.map(error) }
        self.capture = capture

        // 2. Audio: missing server or source means video only, unless audio is required.
        let timeline = self.timeline
        var tracks: [(SampleBufferType, AudioSourceSelector)] = []
        if let s = configuration.appAudio { tracks.append((.audioApp, s)) }
        if let s = configuration.micAudio { tracks.append((.audioMic, s)) }
        var connection: PulseAudioConnection?
        if !tracks.isEmpty {
            do { connection = try PulseAudioConnection(server: configuration.audioServer, clientName: "RecordKit") } catch {
                if configuration.requireAudio { throw Self.map(error) }
                warn("\(error.message): recording video only")
                tracks = []
            }
        }
        audioConnection = connection

        // 3. Handlers and routes.
        var available: Set<SampleBufferType> = [.video]
        // Audio tracks become available once their stream opens (below); open them first.
        var openedTracks: [SampleBufferType] = []
        let graphBox = GraphBox()
        if let connection {
            for (type, selector) in tracks {
                do {
                    let stream = try connection.openStream(selector, name: type == .audioApp ? "app audio" : "microphone") {
                        samples, frames, captureNs in
                        graphBox.graph.withLock { $0 }?.deliver(type, samples: samples, frameCount: frames, captureNs: captureNs)
                    }
                    audioStreams.append(stream)
                    openedTracks.append(type)
                    available.insert(type)
                } catch {
                    if configuration.requireAudio { throw Self.map(error) }
                    warn("\(error.message): recording without \(type == .audioApp ? "app audio" : "microphone")")
                }
            }
        }
        if !openedTracks.isEmpty { available.insert(.audioMixed) }
        audioTracks = openedTracks

        var runners: [HandlerRunner] = []
        var startErrors: [String] = []
        var firstError: BroadcastError?
        for reg in registrations {
            let routes = SampleRoute.routes(for: reg.handler.input, available: available)
            if case .video(.raw(.yuv420p)) = routes.first {
                throw RecorderError(.badArgument, "handler '\(reg.name)' asks for raw yuv420p frames, which this version does not convert; ask for bgr0 or encoded video")
            }
            let runner = HandlerRunner(name: reg.name, handler: reg.handler, routes: Set(routes),
                                       limits: HandlerRunner.Limits(video: reg.maxQueuedVideo)) { [weak self] runner, error in
                self?.handlerEnded(runner, error)
            }
            let context = HandlerContext(runner: runner, streams: Set(routes.map(\.type)))
            do {
                try runner.start(setupInfo: reg.setupInfo, context: context)
                runners.append(runner)
                contexts.append(context)
            } catch {
                let be = error as? BroadcastError ?? BroadcastError(.internalError, "\(error)")
                firstError = firstError ?? be
                startErrors.append("\(reg.name): \(be.message)")
            }
        }
        if runners.isEmpty {
            let kind: RecorderError.Kind = firstError?.kind == .outputFailed ? .cannotCreateOutput
                : firstError?.kind == .invalidSetup ? .badArgument : .failed
            throw RecorderError(kind, startErrors.isEmpty ? "no handler to record into" : startErrors.joined(separator: "; "))
        }
        for message in startErrors { warn("handler \(message)") }
        let dispatcher = Dispatcher(runners: runners)
        self.dispatcher = dispatcher

        // 4. Shared encoders: one per distinct route.
        var videoSinks: [@Sendable (_ frame: CapturedFrame, _ captureNs: Int64, _ slotNs: Int64) -> Void] = []
        var audioSinks: [SampleBufferType: [@Sendable (SampleBuffer) -> Void]] = [:]
        let fps = configuration.screen.framesPerSecond
        var encoderIndex = 0
        for route in dispatcher.routes.sorted(by: { $0.description < $1.description }) {
            encoderIndex += 1
            switch route {
            case .video(.encoded(let settings)):
                do {
                    let stage = try VideoEncodeStage(
                        settings: settings, width: capture.width, height: capture.height, frameRate: fps, id: "h264-\(encoderIndex)",
                        lowDelay: configuration.screen.frameRateMode == .variable,
                        onPacket: { dispatcher.push($0, on: route) },
                        onError: { [weak self] e in self?.routeFailed(route, e.message) })
                    videoStages.append(stage)
                    videoSinks.append { frame, _, slot in stage.submit(frame, slotNs: slot) }
                } catch { throw RecorderError(.failed, "cannot open the H.264 encoder: \(error.message)") }
            case .video(.raw):
                let format = FormatDescription.video(VideoFormat(width: capture.width, height: capture.height, pixelFormat: .bgr0))
                let frameDuration = MediaTime(value: 1, timescale: Int32(fps))
                videoSinks.append { frame, b, _ in
                    let sample = SampleBuffer(type: .video, presentationTime: .nanoseconds(b), duration: frameDuration,
                                              formatDescription: format,
                                              payload: .pixels(PixelData(buffer: frame.pixels, planeOffsets: [0], bytesPerRow: [frame.bytesPerRow])),
                                              frameInfo: frame.frameInfo)
                    dispatcher.push(sample, on: route)
                }
            case .audio(let type, .encoded(let settings)):
                do {
                    let stage = try AudioEncodeStage(
                        type: type, settings: settings, id: "aac-\(type.rawValue)-\(encoderIndex)",
                        onPacket: { dispatcher.push($0, on: route) },
                        onError: { [weak self] e in self?.routeFailed(route, e.message) })
                    audioStages.append(stage)
                    audioSinks[type, default: []].append { stage.submit($0) }
                } catch { throw RecorderError(.failed, "cannot open the AAC encoder: \(error.message)") }
            case .audio(let type, .raw):
                audioSinks[type, default: []].append { dispatcher.push($0, on: route) }
            case .video(.none), .audio(_, .none):
                break
            }
        }
        let graph = AudioGraph(timeline: timeline, tracks: openedTracks, sinks: audioSinks)
        audioGraph = graph
        graphBox.graph.withLock { $0 = graph }

        // 5. Go. Broadcast time starts at the due time of the first frame's capture tick, so
        // the first frame fills slot 0; audio captured before it is trimmed.
        let sinks = videoSinks
        let firstFrameSignal = firstFrame
        capture.onWindowGone = { [weak self] in self?.stopAsync(reason: "the recorded window was destroyed") }
        capture.onFailure = { [weak self] error in self?.stopAsync(reason: "screen capture failed: \(error.message)", failed: true) }
        capture.start { [weak self] frame in
            guard let self else { return }
            let first = self.lock.withLock { s -> Bool in
                if s.firstFrame { return false }
                s.firstFrame = true
                s.startNs = frame.scheduledTime
                return true
            }
            if first {
                timeline.start(at: min(frame.scheduledTime, frame.captureTime))
                firstFrameSignal.signal()
            }
            // Content time decides what is cut (paused spans); the tick's due time decides the slot.
            guard let b = timeline.broadcastTime(ofCapture: frame.captureTime) else { return }
            let slot = timeline.broadcastTime(ofCapture: frame.scheduledTime) ?? b
            for sink in sinks { sink(frame, b, slot) }
        }
        if !openedTracks.isEmpty {
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "recordkit.audio.silence"))
            timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(50))
            timer.setEventHandler { [timeline] in
                // A source that delivered nothing for 250 ms is silent: fill so the timeline has no hole.
                graph.fillSilence(until: timeline.now(cshim_monotonic_ns()) - 250_000_000)
            }
            timer.resume()
            silenceTimer = timer
        }
        connection?.onDisconnect = { [weak self] reason in self?.warn("audio server lost (\(reason)): audio continues as silence") }
        setState(.recording, reason: "started")
    }

    // MARK: Pause and resume

    /// Pauses: nothing captured from now on reaches a handler; handlers get `broadcastPaused()`.
    public func pause(reason: String = "user") throws(RecorderError) {
        let r: Result<Void, RecorderError> = control.sync {
            guard state == .recording else { return .failure(RecorderError(.invalidState, "cannot pause: the recording is \(state.rawValue)")) }
            timeline.pause(at: cshim_monotonic_ns())
            dispatcher?.paused()
            setState(.paused, reason: reason)
            return .success(())
        }
        try r.get()
    }

    /// Resumes after ``pause(reason:)``; broadcast time goes on where it stopped.
    public func resume(reason: String = "user") throws(RecorderError) {
        let r: Result<Void, RecorderError> = control.sync {
            guard state == .paused else { return .failure(RecorderError(.invalidState, "cannot resume: the recording is \(state.rawValue)")) }
            timeline.resume(at: cshim_monotonic_ns())
            dispatcher?.resumed()
            setState(.recording, reason: reason)
            return .success(())
        }
        try r.get()
    }

    // MARK: Stop and discard

    /// Stops capture, drains encoders, finalizes every handler and returns their snapshots
    /// (each handler's `serviceInfo["path"]` says where its result is). Blocks until done.
    @discardableResult
    public func stop(reason: String = "user") -> [HandlerSnapshot] {
        control.sync { finishOnControlQueue(discard: false, reason: reason) }
    }

    /// Stops and tells every handler to delete what it wrote; returns their snapshots.
    @discardableResult
    public func discard(reason: String = "user") -> [HandlerSnapshot] {
        control.sync { finishOnControlQueue(discard: true, reason: reason) }
    }

    private func stopAsync(reason: String, failed: Bool = false) {
        control.async { [self] in _ = finishOnControlQueue(discard: false, reason: reason, failed: failed) }
    }

    private func finishOnControlQueue(discard: Bool, reason: String, failed: Bool = false) -> [HandlerSnapshot] {
        guard [.recording, .paused].contains(state) else { return dispatcher?.runners.map(\.snapshot) ?? [] }
        // Freeze broadcast time at this instant: whatever is captured from now on is cut, so the
        // output ends exactly here (video and audio alike).
        let endNs = cshim_monotonic_ns()
        timeline.pause(at: endNs)
        let endBroadcast = timeline.now(endNs)
        setState(.finishing, reason: reason)
        capture?.stop()
        for s in audioStreams { s.stop() }
        silenceTimer?.cancel()
        silenceTimer = nil
        // Audio as long as the video: silence up to the end, then the last partial block.
        audioGraph?.finish(at: endBroadcast)
        for stage in videoStages { stage.finish(at: endBroadcast) }
        for stage in audioStages { stage.finish() }
        if discard { for c in contexts { c.markDiscarding() } }
        dispatcher?.flush()
        let group = DispatchGroup()
        for runner in dispatcher?.runners ?? [] {
            group.enter()
            runner.finish { group.leave() }
        }
        group.wait()
        teardownOnControlQueue()
        setState(discard ? .discarded : (failed ? .failed : .finished), reason: reason)
        return dispatcher?.runners.map(\.snapshot) ?? []
    }

    private func teardownOnControlQueue() {
        capture?.stop()
        for s in audioStreams { s.stop() }
        audioStreams = []
        silenceTimer?.cancel()
        silenceTimer = nil
        audioConnection?.close()
        audioConnection = nil
    }

    // MARK: Failures

    private func handlerEnded(_ runner: HandlerRunner, _ error: BroadcastError) {
        control.async { [self] in
            emit(RecorderEvent(state: state, reason: "handler '\(runner.name)' failed: \(error.message)",
                               time: Double(timeline.now(cshim_monotonic_ns())) / 1e9, handler: runner.name))
            if let runners = dispatcher?.runners, runners.allSatisfy(\.isEnded) {
                _ = finishOnControlQueue(discard: false, reason: "every handler failed; last: \(error.message)", failed: true)
            }
        }
    }

    private func routeFailed(_ route: SampleRoute, _ message: String) {
        for runner in dispatcher?.runners ?? [] where runner.routes.contains(route) {
            runner.end(with: BroadcastError(.internalError, "encoder for \(route) failed: \(message)"))
        }
    }

    // MARK: Status

    /// A snapshot of the recording for status output.
    public var status: RecorderStatus {
        let shared = lock.withLock { $0 }
        let now = cshim_monotonic_ns()
        var cap = CaptureStatus()
        if let capture {
            let stats = capture.statistics
            cap.framesCaptured = stats.captured
            cap.framesDropped = stats.droppedPoolExhausted + videoStages.reduce(0) { $0 + $1.dropped }
            cap.lateTicks = stats.lateTicks
            cap.width = capture.width
            cap.height = capture.height
            // Capture keeps ticking while paused (its frames are dropped at the timeline), so the
            // rate is over wall time.
            let wall = Double(now - min(now, shared.startNs)) / 1e9
            cap.fps = wall > 0 && shared.startNs > 0 ? Double(stats.captured) / max(wall, 0.001) : 0
            cap.damage = DamageStatus(statistics: stats, mode: configuration.screen.frameRateMode,
                                      conversions: videoStages.reduce(0) { $0 + $1.conversions },
                                      convertedRows: videoStages.reduce(0) { $0 + $1.convertedRows })
        }
        cap.audioTracks = audioTracks.map(\.rawValue)
        cap.audioOffsetMs = audioGraph?.offsetsMs ?? [:]
        return RecorderStatus(
            state: shared.state,
            recordedSeconds: shared.startNs == 0 ? 0 : Double(timeline.now(now)) / 1e9,
            pausedSeconds: Double(timeline.pausedTime(now: now)) / 1e9,
            capture: cap,
            handlers: dispatcher?.runners.map(\.snapshot) ?? [],
            warnings: shared.warnings,
            videoEncoders: videoStages.count)
    }

    // MARK: Helpers

    private func setState(_ newState: RecorderState, reason: String) {
        lock.withLock { $0.state = newState }
        let t = lock.withLock { $0.startNs } == 0 ? 0 : Double(timeline.now(cshim_monotonic_ns())) / 1e9
        emit(RecorderEvent(state: newState, reason: reason, time: t))
    }

    private func emit(_ event: RecorderEvent) { onEvent(event) }

    private func warn(_ message: String) { lock.withLock { $0.warnings.append(message) } }

    private static func map(_ error: CaptureError) -> RecorderError {
        switch error.kind {
        case .badRegion: return RecorderError(.badArgument, error.message)
        case .noDisplay, .windowNotFound, .windowGone, .noAudioServer, .audioSourceNotFound: return RecorderError(.unavailable, error.message)
        case .xError, .audioError: return RecorderError(.failed, error.message)
        }
    }
}

/// Lets PulseAudio callbacks, set up before the graph exists, reach it once built.
private final class GraphBox: Sendable {
    let graph = Mutex<AudioGraph?>(nil)
}
