import RecordKit
import RecordKitSupport
import Synchronization

/// Runs one handler: its own serial queue, a bounded backlog, and the serial-call contract.
///
/// Every call to the handler is made on the runner's own thread (``SerialThread``, named
/// `rk-out-NAME`; never Swift's cooperative pool), one at a time, in enqueue order: `broadcastStarted` first,
/// `broadcastFinished` exactly once and last. Enqueueing never blocks the caller. When more
/// than ``Limits/video`` video samples wait, further video is dropped (for encoded video, up
/// to the next key frame, so the handler's stream stays decodable) and counted; raw frames,
/// which are capture-pool memory, are bounded by ``Limits/rawVideo``. Audio is never dropped
/// silently: when more than ``Limits/audio`` audio samples wait, the handler is ended with an
/// ``BroadcastError/Kind/overrun`` error that says so.
///
/// A ``QueueOwningHandler`` (a live stream) owns its output's one queue and drop policy: the
/// runner neither queues nor bounds its samples but calls it directly, under a lock of its own,
/// on the releasing thread (its lifecycle calls too, so the order and the serial contract
/// hold); only `broadcastFinished` runs on the runner's queue, once no call can reach the
/// handler any more. Its statistics are the handler's own counts. A packet costs that one lock
/// (its output window lives under it, the end is an atomic flag, the counts atomic counters)
/// besides the handler's own: docs/BENCHMARKS.md, "Handing packets to a live stream".
///
/// The parts: the bounded queue in `HandlerRunner+Queue.swift`, the direct calls of a queue owner
/// in `HandlerRunner+Direct.swift`, the lifecycle calls in `HandlerRunner+Lifecycle.swift`, the
/// output's own pause, resume and cut (``OutputWindow``) in `HandlerRunner+Window.swift`.
package final class HandlerRunner: @unchecked Sendable {
    /// Queue bounds.
    package struct Limits: Sendable {
        /// Video samples allowed to wait (2 s at 30 fps).
        package var video = 60
        /// Raw frames allowed to wait: they are the capture pool's memory, shared with capture
        /// and every other handler, so a slow handler may hold only a few.
        package var rawVideo = 3
        /// Audio samples allowed to wait (about 6 s of two 1024-frame AAC tracks).
        package var audio = 600
    }

    /// What the runner knows of its handler, under ``state``: a queued handler's backlog, its
    /// drop state and counts, and for every handler its end, error and published info.
    struct State {
        var pendingVideo = 0
        var pendingAudio = 0
        var droppingVideoUntilKeyFrame = false
        var finishCalled = false
        var error: BroadcastError?
        var serviceInfo: [String: String] = [:]
        var stats = HandlerCounts()
        /// The output window of a queued handler (a queue owner's is ``Direct/window``).
        var window: OutputWindow
    }

    /// What the calls to a queue-owning handler need, under ``direct``, the lock that serializes
    /// them: a sample's admission and its call take that one lock.
    struct Direct {
        /// The queue owner's output window.
        var window: OutputWindow
        /// Set by ``finish(completion:)``: nothing more is called.
        var closed = false
    }

    /// The name it was registered under ("file", "rtmp-2", …).
    package let name: String
    let routes: Set<SampleRoute>
    /// The actions the handler performs (``BroadcastActionHandler``), read once at creation.
    let supportedActions: Set<String>
    let handler: any BroadcastSampleHandler  // touched on `queue` only, or under `direct`
    /// The handler, when it owns its queue (then `direct` serializes the calls to it).
    let queueOwner: (any QueueOwningHandler)?
    let direct: Mutex<Direct>
    /// Set once the handler ended (an error) or was finished: nothing more is delivered. Read
    /// without a lock on every sample.
    let ended = Atomic<Bool>(false)
    /// What a queue owner was given (its calls are counted without the state lock).
    let directDelivered = Atomic<Int64>(0)
    let directBytes = Atomic<Int64>(0)
    /// Whether the output is paused on its own (from ``pauseOutput(at:)`` to ``resumeOutput(at:)``), for status.
    let pausedAlone = Atomic<Bool>(false)
    /// The runner's thread: every call to a queued handler, and a queue owner's `broadcastFinished`.
    /// It ends after `broadcastFinished` (``finish(completion:)``).
    let queue: SerialThread
    let limits: Limits
    let state: Mutex<State>
    private let onEnded: @Sendable (HandlerRunner, BroadcastError) -> Void
    /// Called (on the publishing thread) when the handler publishes a new `state` service-info
    /// value ("connecting", "live", "reconnecting (attempt 2)", …), with everything it published.
    private let onServiceState: (@Sendable (HandlerRunner, [String: String]) -> Void)?
    /// Called (on the publishing thread) for each ``BroadcastEvent`` the handler sends.
    private let onEvent: (@Sendable (HandlerRunner, BroadcastEvent) -> Void)?

    /// `attachedAtNs`: the broadcast time the handler was attached to a running capture (its
    /// stream starts at the next key frame, shifted to zero: ``OutputWindow``); nil for a handler
    /// that starts with the capture.
    package init(name: String, handler: any BroadcastSampleHandler, routes: Set<SampleRoute>, limits: Limits = Limits(),
         attachedAtNs: Int64? = nil,
         onServiceState: (@Sendable (HandlerRunner, [String: String]) -> Void)? = nil,
         onEvent: (@Sendable (HandlerRunner, BroadcastEvent) -> Void)? = nil,
         onEnded: @escaping @Sendable (HandlerRunner, BroadcastError) -> Void) {
        self.onServiceState = onServiceState
        self.onEvent = onEvent
        self.name = name
        self.handler = handler
        self.supportedActions = (handler as? any BroadcastActionHandler)?.supportedActions ?? []
        self.queueOwner = handler as? any QueueOwningHandler
        self.routes = routes
        self.limits = limits
        self.onEnded = onEnded
        self.queue = SerialThread(name: "rk-out-" + name)
        let hasVideo = routes.contains { $0.type == .video }
        let window: OutputWindow = attachedAtNs.map { .attached(at: $0, hasVideo: hasVideo) } ?? .fromStart(hasVideo: hasVideo)
        self.state = Mutex(State(window: window))
        self.direct = Mutex(Direct(window: window))
    }

    /// Calls `broadcastStarted` synchronously on the handler's queue; rethrows its error.
    func start(setupInfo: SetupInfo, context: any BroadcastContext) throws {
        let handler = UncheckedHandler(self.handler)
        try queue.sync { try handler.value.broadcastStarted(setupInfo: setupInfo, context: context) }
    }

    /// Calls `broadcastStarted` synchronously with a context of the runner's own that announces
    /// `formats` and `workingDirectory` and offers no recording controls (a handler run outside
    /// a ``Recorder``: the benchmarks); rethrows the handler's error.
    package func start(setupInfo: SetupInfo, formats: [SampleBufferType: FormatDescription], workingDirectory: String? = nil) throws {
        try start(setupInfo: setupInfo, context: HandlerContext(runner: self, formats: formats, workingDirectory: workingDirectory))
    }

    /// Queues one sample (never blocks); applies the back-pressure policy (a queue owner is
    /// called at once instead: ``deliverDirectly(_:)``).
    package func enqueue(_ incoming: SampleBuffer) {
        if queueOwner != nil { deliverDirectly(incoming) } else { enqueueOnQueue(incoming) }
    }

    /// Ends this handler's broadcast with an error: nothing more is delivered; the pipeline is
    /// told once. `broadcastFinished()` still comes when the recording finishes it.
    func end(with error: BroadcastError) {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        state.withLock { $0.error = error }
        onEnded(self, error)
    }

    /// Queues `broadcastFinished()` (once) and calls `completion` after it returned.
    package func finish(completion: @escaping @Sendable () -> Void) {
        let handler = UncheckedHandler(handler)
        // A direct call in progress ends first; later ones see `closed` and call nothing.
        if queueOwner != nil { direct.withLock { $0.closed = true } }
        queue.async { [self] in
            let call: Bool = state.withLock { s in
                if s.finishCalled { return false }
                s.finishCalled = true
                return true
            }
            if call { handler.value.broadcastFinished() }
            ended.store(true, ordering: .releasing)
            completion()
            queue.close()  // the last call: the thread ends after this job
        }
    }

    /// Records what the handler published.
    func publish(_ info: [String: String]) {
        let changed: [String: String]? = state.withLock { s in
            let before = s.serviceInfo["state"]
            s.serviceInfo.merge(info) { _, new in new }
            for (key, value) in info where value.isEmpty { s.serviceInfo[key] = nil }  // an empty value removes the key
            return info["state"].map { $0 != before } == true ? s.serviceInfo : nil
        }
        if let changed { onServiceState?(self, changed) }
    }

    /// Passes on an event the handler sent (``BroadcastContext/publish(event:)``).
    func announce(_ event: BroadcastEvent) { onEvent?(self, event) }

    /// A snapshot for status output.
    package var snapshot: HandlerRunReport {
        let owned = queueOwner?.queueCounts
        // Not the window itself: a queue owner's is under `direct`, which a handler holds while it
        // is called, and a handler may ask for the recording's status from inside a call.
        let paused = pausedAlone.load(ordering: .relaxed)
        return state.withLock { s in
            var stats = s.stats
            if let owned {
                stats.delivered = directDelivered.load(ordering: .relaxed)
                stats.bytesDelivered = directBytes.load(ordering: .relaxed)
                stats.droppedVideo = owned.droppedVideo
                stats.droppedAudio = owned.droppedAudio
                stats.queued = owned.queued
                stats.queueHighWater = owned.queueHighWater
            }
            return HandlerRunReport(name: name,
                                   state: s.finishCalled && s.error == nil ? .finished : (s.error != nil ? .failed : .running),
                                   error: s.error?.message, serviceInfo: s.serviceInfo, statistics: stats,
                                   paused: paused ? true : nil)
        }
    }

    /// The output window, under the lock that guards it (``Direct`` for a queue owner, ``State`` otherwise).
    func withWindow<T: Sendable>(_ body: (inout OutputWindow) -> T) -> T {
        if queueOwner != nil { return direct.withLock { body(&$0.window) } }
        return state.withLock { body(&$0.window) }
    }

    /// Whether the handler was ended by an error (or finished).
    var isEnded: Bool { ended.load(ordering: .acquiring) }
}
