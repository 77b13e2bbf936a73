import Dispatch
import RecordKit
import RecordKitCapture
import RecordKitMedia
import RecordKitSupport
import Synchronization

/// Records the screen and audio into a set of broadcast handlers: the equivalent of
/// `RPScreenRecorder` plus `RPBroadcastController`.
///
/// The parts: ``RecordingGraphBuilder`` opens and wires capture, encoders, dispatcher and
/// handlers; ``RecorderLifecycle`` is the state machine; the status is one snapshot taken under
/// the recorder's one lock (``status``); ``BackgroundPauser`` pauses while the recorded window
/// is in the background or the screen is locked.
///
/// Threading: the public methods may be called from any thread; lifecycle changes are
/// serialized on a private control queue, and ``status`` never waits for them. Capture, audio
/// and encoding run on threads and serial queues of their own, never on Swift's cooperative
/// pool. `onEvent` is called on the control queue for every state transition and handler
/// failure; it must return quickly and must not call back into the recorder synchronously.
package final class Recorder: @unchecked Sendable {
    private let configuration: RecordingConfiguration
    private let registrations: [HandlerRegistration]
    let onEvent: @Sendable (RecorderEvent) -> Void
    let control = DispatchQueue(label: "recordkit.recorder.control")
    let timeline: Timeline
    private let firstFrame = DispatchSemaphore(value: 0)
    /// What handlers reach through ``BroadcastControlling`` (status, control requests).
    let controlLink = RecordingControlLink()

    /// Everything status reads, under one lock; written on the control queue (and `startNs`
    /// by the first frame).
    private let shared = Mutex(Shared())
    private struct Shared {
        var lifecycle = RecorderLifecycle()
        var graph: RecordingGraph?
        var warnings: [String] = []
        var startNs: UInt64 = 0
        var endNs: UInt64?
    }
    private var pauser: BackgroundPauser?  // control queue only
    /// The input of every output attached now, by name, in the order they came (the first
    /// non-sharing one leads the "same as stream" video sharing of outputs attached later).
    let outputInputs: Mutex<[(name: String, input: HandlerInput)]>

    /// Creates a recorder for `configuration` that will feed `handlers`. Nothing runs before ``start()``.
    package init(configuration: RecordingConfiguration, handlers: [HandlerRegistration],
                onEvent: @escaping @Sendable (RecorderEvent) -> Void = { _ in }) {
        FFmpegLog.configureFromEnvironment()
        self.configuration = configuration
        self.timeline = Timeline(quantumNs: 1_000_000_000 / UInt64(max(configuration.screen.framesPerSecond, 1)))
        self.registrations = handlers
        self.outputInputs = Mutex(handlers.map { ($0.name, $0.handler.input) })
        self.onEvent = onEvent
        controlLink.attach(self)
    }

    /// The id of the recorded window (resolved from its name), when recording a window.
    package var capturedWindowID: UInt? { shared.withLock { $0.graph?.capture.windowID } }

    /// The current state.
    package var state: RecorderState { shared.withLock { $0.lifecycle.state } }

    /// The running graph (nil before start).
    var graph: RecordingGraph? { shared.withLock { $0.graph } }

    /// A runner for a handler attached to the running capture at broadcast time `atNs`, reporting
    /// its state, events and failure as the graph's own runners do.
    func attachedRunner(_ registration: HandlerRegistration, routes: Set<SampleRoute>, atNs: Int64) -> HandlerRunner {
        HandlerRunner(name: registration.name, handler: registration.handler, routes: routes,
                      limits: HandlerRunner.Limits(video: registration.maxQueuedVideo), attachedAtNs: atNs,
                      onServiceState: { [weak self] runner, info in self?.handlerServiceState(runner, info) },
                      onEvent: { [weak self] runner, event in self?.handlerSentEvent(runner, event) },
                      onEnded: { [weak self] runner, error in self?.handlerEnded(runner, error) })
    }

    /// The handler runners of the running graph (none before start).
    var runners: [HandlerRunner] { shared.withLock { $0.graph?.dispatcher.runners } ?? [] }

    /// The running graph's dispatcher (nil before start).
    var dispatcher: Dispatcher? { shared.withLock { $0.graph?.dispatcher } }

    /// The running graph's video encode stages (none before start).
    var videoStages: [VideoEncodeStage] { shared.withLock { $0.graph?.videoStages } ?? [] }

    /// The running graph's audio half and its recorded tracks (nil before start).
    var audio: (graph: AudioGraph, tracks: [SampleBufferType])? { shared.withLock { $0.graph.map { ($0.audioGraph, $0.audioTracks) } } }
    /// The camera overlay of the running graph, when the recording composites a camera.
    var cameraOverlay: CameraOverlaySource? { shared.withLock { $0.graph?.camera } }

    // MARK: Start

    /// Opens capture, audio, encoders and handlers (each learns its streams' formats in
    /// `broadcastStarted`), then starts capturing. Returns once capture runs; throws without
    /// leaving anything running when any part cannot start.
    package func start() throws(RecorderError) {
        let result: Result<Void, RecorderError> = control.sync {
            do throws(RecorderError) {
                try startOnControlQueue()
                return .success(())
            } catch {
                shared.withLock { $0.graph }?.teardown()
                transition(to: .failed, reason: error.message)
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Blocks until the first frame was captured (or `timeout` passed); true if it was.
    package func waitForFirstFrame(timeout: Double) -> Bool {
        if shared.withLock({ $0.startNs != 0 }) { return true }
        let ok = firstFrame.wait(timeout: .now() + timeout) == .success
        if ok { firstFrame.signal() }
        return ok
    }

    private func startOnControlQueue() throws(RecorderError) {
        guard transition(to: .starting, reason: "start requested") else {
            throw RecorderError(.invalidState, "this recorder was already started")
        }
        let builder = RecordingGraphBuilder(
            configuration: configuration, registrations: registrations, timeline: timeline,
            warn: { [weak self] in self?.warn($0) },
            onOverload: { [weak self] in self?.warn($0, live: true, kind: RecorderEvent.overloadKind) },
            onHandlerEnded: { [weak self] runner, error in self?.handlerEnded(runner, error) },
            onRouteFailed: { [weak self] route, message in self?.routeFailed(route, message) },
            onHandlerState: { [weak self] runner, info in self?.handlerServiceState(runner, info) },
            controlLink: controlLink,
            onHandlerEvent: { [weak self] runner, event in self?.handlerSentEvent(runner, event) })
        let graph = try builder.build()
        shared.withLock { $0.graph = graph }

        // Broadcast time starts at the due time of the first frame's capture tick, so the first
        // frame fills slot 0; audio captured before it is trimmed.
        let timeline = self.timeline
        let signal = firstFrame
        graph.capture.onWindowGone = { [weak self] in self?.stopAsync(reason: "the recorded window was destroyed") }
        graph.capture.onFailure = { [weak self] error in self?.stopAsync(reason: "screen capture failed: \(error.message)", failed: true) }
        graph.audio.onDisconnect = { [weak self] reason in self?.warn("audio server lost (\(reason)): audio continues as silence", live: true) }
        graph.start(timeline: timeline) { [weak self] frame in
            timeline.start(at: min(frame.scheduledTime, frame.captureTime))
            self?.shared.withLock { $0.startNs = frame.scheduledTime }
            signal.signal()
        }
        transition(to: .recording, reason: "started")
        pauser = BackgroundPauser.start(configuration: configuration, window: graph.capture.windowID) { [weak self] change in
            self?.backgroundChanged(change)
        }
    }

    // MARK: Pause and resume

    /// Pauses at the user's request: nothing captured from now on reaches a handler; handlers
    /// get `broadcastPaused()`. Pausing a recording the background already paused makes the
    /// pause the user's too (it outlasts the background).
    package func pause(reason: String = "user") throws(RecorderError) {
        try onControl { () throws(RecorderError) in
            let effect = try shared.withLock { s throws(RecorderError) in try s.lifecycle.userPause() }
            apply(effect, reason: reason)
        }
    }

    /// Resumes after ``pause(reason:)``; broadcast time goes on where it stopped. Throws while
    /// the background holds the pause (the recording resumes by itself when that ends).
    package func resume(reason: String = "user") throws(RecorderError) {
        try onControl { () throws(RecorderError) in
            let effect = try shared.withLock { s throws(RecorderError) in try s.lifecycle.userResume() }
            apply(effect, reason: reason)
        }
    }

    private func backgroundChanged(_ change: BackgroundChange) {
        control.async { [self] in
            switch change {
            case .background(let reason):
                apply(shared.withLock { $0.lifecycle.background(reason.description) }, reason: reason.description)
            case .foreground(let previous):
                apply(shared.withLock { $0.lifecycle.foreground() }, reason: "\(previous.description) ended")
            case .windowDestroyed:
                break  // The capture notices too and finishes the recording with that reason.
            }
        }
    }

    /// Carries out a pause or resume the lifecycle decided (control queue).
    private func apply(_ effect: RecorderLifecycle.Effect, reason: String) {
        let graph = shared.withLock { $0.graph }
        switch effect {
        case .none:
            return
        case .paused:
            timeline.pause(at: MonotonicClock.nanoseconds())
            graph?.dispatcher.paused()
            emit(state: .paused, reason: reason)
        case .resumed:
            timeline.resume(at: MonotonicClock.nanoseconds())
            graph?.dispatcher.resumed()
            emit(state: .recording, reason: reason)
        }
    }

    // MARK: Stop and discard

    /// Stops capture, drains encoders, finalizes every handler and returns their snapshots
    /// (each handler's `serviceInfo["path"]` says where its result is). Blocks until done.
    @discardableResult
    package func stop(reason: String = "user") -> [HandlerRunReport] {
        control.sync { finishOnControlQueue(discard: false, reason: reason) }
    }

    /// Stops and tells every handler to delete what it wrote; returns their snapshots.
    @discardableResult
    package func discard(reason: String = "user") -> [HandlerRunReport] {
        control.sync { finishOnControlQueue(discard: true, reason: reason) }
    }

    private func stopAsync(reason: String, failed: Bool = false) {
        control.async { [self] in _ = finishOnControlQueue(discard: false, reason: reason, failed: failed) }
    }

    private func finishOnControlQueue(discard: Bool, reason: String, failed: Bool = false) -> [HandlerRunReport] {
        guard let graph = shared.withLock({ $0.graph }) else { return [] }
        guard transition(to: .finishing, reason: reason) else { return graph.dispatcher.runners.map(\.snapshot) }
        pauser?.stop()
        pauser = nil
        // Freeze broadcast time at this instant: whatever is captured from now on is cut, so the
        // output ends exactly here (video and audio alike).
        let endNs = MonotonicClock.nanoseconds()
        timeline.pause(at: endNs)
        shared.withLock { $0.endNs = endNs }
        graph.finish(at: timeline.now(endNs), discarding: discard)
        transition(to: discard ? .discarded : (failed ? .failed : .finished), reason: reason)
        return graph.dispatcher.runners.map(\.snapshot)
    }

    // MARK: Failures

    private func handlerEnded(_ runner: HandlerRunner, _ error: BroadcastError) {
        control.async { [self] in
            let state = self.state
            onEvent(RecorderEvent(state: state, reason: "handler '\(runner.name)' failed: \(error.message)",
                                  time: broadcastSeconds(), handler: runner.name))
            guard state == .recording || state == .paused, let runners = shared.withLock({ $0.graph?.dispatcher.runners }) else { return }
            if runners.allSatisfy(\.isEnded) {
                _ = finishOnControlQueue(discard: false, reason: "every handler failed; last: \(error.message)", failed: true)
            }
        }
    }

    /// A handler's published `state` changed (an endpoint connecting, live, reconnecting, gave
    /// up): an event, so watchers see it without polling status.
    private func handlerServiceState(_ runner: HandlerRunner, _ info: [String: String]) {
        onEvent(HandlerStateEvent.make(runner: runner.name, info: info, recording: state, time: broadcastSeconds()))
    }

    /// A handler sent an event (a file part finalized): passed on with its kind and path.
    private func handlerSentEvent(_ runner: HandlerRunner, _ event: BroadcastEvent) {
        onEvent(RecorderEvent(state: state, reason: runner.name + ": " + event.message, time: broadcastSeconds(),
                              handler: runner.name, kind: event.kind, path: event.path))
    }

    private func routeFailed(_ route: SampleRoute, _ message: String) {
        for runner in shared.withLock({ $0.graph?.dispatcher.runners }) ?? [] where runner.routes.contains(route) {
            runner.end(with: BroadcastError(.internalError, "encoder for \(route) failed: \(message)"))
        }
    }

    // MARK: Status

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

    // MARK: Helpers

    /// Runs `body` on the control queue and rethrows its error.
    func onControl(_ body: () throws(RecorderError) -> Void) throws(RecorderError) {
        let result: Result<Void, RecorderError> = control.sync {
            do throws(RecorderError) { try body(); return .success(()) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// Moves the lifecycle to `next` and emits the event; false when the move is not allowed.
    @discardableResult
    private func transition(to next: RecorderState, reason: String) -> Bool {
        guard shared.withLock({ $0.lifecycle.move(to: next) }) else { return false }
        emit(state: next, reason: reason)
        return true
    }

    private func emit(state: RecorderState, reason: String) {
        onEvent(RecorderEvent(state: state, reason: reason, time: broadcastSeconds()))
    }

    private func broadcastSeconds() -> Double {
        shared.withLock { $0.startNs } == 0 ? 0 : Double(timeline.now(MonotonicClock.nanoseconds())) / 1e9
    }

    /// Adds a warning to the status; a `live` one (while recording) is also an event, of `kind`
    /// when given (``RecorderEvent/overloadKind``: frames are being dropped, the recording is otherwise whole).
    private func warn(_ message: String, live: Bool = false, kind: String? = nil) {
        shared.withLock { $0.warnings.append(message) }
        if live { onEvent(RecorderEvent(state: state, reason: message, time: broadcastSeconds(), isWarning: true, kind: kind)) }
    }
}
