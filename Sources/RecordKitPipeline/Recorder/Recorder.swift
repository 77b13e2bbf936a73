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
///
/// The parts of the type: pause and resume in `Recorder+PauseResume.swift`, stop and discard in
/// `Recorder+Stop.swift`, handler and encoder failures in `Recorder+Failures.swift`, the status
/// snapshot in `Recorder+Status.swift`; outputs that come and go in `Recorder+Attach.swift`.
package final class Recorder: @unchecked Sendable {
    let configuration: RecordingConfiguration
    private let registrations: [HandlerRegistration]
    let onEvent: @Sendable (RecorderEvent) -> Void
    let control = DispatchQueue(label: "recordkit.recorder.control")
    let timeline: Timeline
    private let firstFrame = DispatchSemaphore(value: 0)
    /// What handlers reach through ``BroadcastControlling`` (status, control requests).
    let controlLink = RecordingControlLink()

    /// Everything status reads, under one lock; written on the control queue (and `startNs`
    /// by the first frame).
    let shared = Mutex(Shared())
    /// What ``shared`` guards.
    struct Shared {
        var lifecycle = RecorderLifecycle()
        var graph: RecordingGraph?
        var warnings: [String] = []
        var startNs: UInt64 = 0
        var endNs: UInt64?
    }
    /// Pauses while the recorded window is in the background (control queue only).
    var pauser: BackgroundPauser?  // control queue only
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
    func transition(to next: RecorderState, reason: String) -> Bool {
        guard shared.withLock({ $0.lifecycle.move(to: next) }) else { return false }
        emit(state: next, reason: reason)
        return true
    }

    /// Sends a state event with the broadcast time now.
    func emit(state: RecorderState, reason: String) {
        onEvent(RecorderEvent(state: state, reason: reason, time: broadcastSeconds()))
    }

    /// The broadcast time now, in seconds (0 before the first frame).
    func broadcastSeconds() -> Double {
        shared.withLock { $0.startNs } == 0 ? 0 : Double(timeline.now(MonotonicClock.nanoseconds())) / 1e9
    }

    /// Adds a warning to the status; a `live` one (while recording) is also an event, of `kind`
    /// when given (``RecorderEvent/overloadKind``: frames are being dropped, the recording is otherwise whole).
    func warn(_ message: String, live: Bool = false, kind: String? = nil) {
        shared.withLock { $0.warnings.append(message) }
        if live { onEvent(RecorderEvent(state: state, reason: message, time: broadcastSeconds(), isWarning: true, kind: kind)) }
    }
}
