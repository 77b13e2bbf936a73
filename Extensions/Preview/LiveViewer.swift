import Synchronization

/// One page watching the live picture: a bounded queue of fragments between the recording
/// (which offers, never waits) and the viewer's WebSocket (which takes, at its own pace).
///
/// The first thing taken is the init segment; then fragments from a key frame on. When the
/// queue holds more than ``maxQueuedBytes`` or ``maxQueuedFragments`` (the viewer reads too
/// slowly, or not at all), it is emptied and the viewer starts again at the next key frame: it
/// is skipped forward, and the recording never slows. ``skips`` counts how often.
///
/// A page that cannot decode every frame (a starved CPU) asks for key frames only
/// (``setKeyFramesOnly(_:)``): it then gets one picture per GOP, a small part of the decoding,
/// until it asks for every frame again.
///
/// Threading: ``offer(_:)`` from the handler's queue, ``next()`` and ``setKeyFramesOnly(_:)``
/// from the socket's tasks; any thread.
final class LiveViewer: Sendable {
    /// The most bytes waiting for a viewer before it is skipped forward.
    static let maxQueuedBytes = 8 * 1_048_576
    /// The most fragments (frames) waiting for a viewer before it is skipped forward (3 s at 30 fps).
    static let maxQueuedFragments = 90

    private struct State {
        var initSegment: [UInt8]?
        var queue: [[UInt8]] = []
        var queuedBytes = 0
        var waitingForKeyFrame = true
        var waiter: CheckedContinuation<[UInt8]?, Never>?
        var ended = false
        var skips = 0
        var keyFramesOnly = false
    }
    private let state: Mutex<State>

    init(initSegment: [UInt8]) {
        state = Mutex(State(initSegment: initSegment))
    }

    /// How often this viewer was skipped forward.
    var skips: Int { state.withLock { $0.skips } }

    /// Whether the viewer gets key frames only (its page asked for them, being behind).
    var keyFramesOnly: Bool { state.withLock { $0.keyFramesOnly } }

    /// From now on, only fragments that start with a key frame (`true`), or every fragment
    /// again (`false`, from the next key frame on: a frame needs the ones before it).
    func setKeyFramesOnly(_ on: Bool) {
        state.withLock { s in
            guard s.keyFramesOnly != on else { return }
            s.keyFramesOnly = on
            if !on { s.waitingForKeyFrame = true }
        }
    }

    /// Fragments waiting.
    var queuedCount: Int { state.withLock { $0.queue.count } }

    /// Queues `fragment` for the viewer, or hands it to a waiting ``next()``. Never blocks.
    func offer(_ bytes: [UInt8], isKeyFrame: Bool) {
        let waiter: CheckedContinuation<[UInt8]?, Never>? = state.withLock { s in
            if s.ended { return nil }
            if s.waitingForKeyFrame || s.keyFramesOnly {
                guard isKeyFrame else { return nil }
                s.waitingForKeyFrame = false
            }
            if let waiter = s.waiter {
                s.waiter = nil
                return waiter
            }
            if s.queuedBytes + bytes.count > Self.maxQueuedBytes || s.queue.count >= Self.maxQueuedFragments {
                s.queue.removeAll()
                s.queuedBytes = 0
                s.skips += 1
                guard isKeyFrame else {
                    s.waitingForKeyFrame = true
                    return nil
                }
            }
            s.queue.append(bytes)
            s.queuedBytes += bytes.count
            return nil
        }
        waiter?.resume(returning: bytes)
    }

    /// The next bytes to send: the init segment first, then fragments; nil once the viewer
    /// ended (the recording stopped, the socket closed, or the task was cancelled).
    func next() async -> [UInt8]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]?, Never>) in
                let ready: [UInt8]?? = state.withLock { s in
                    if let initSegment = s.initSegment {
                        s.initSegment = nil
                        return .some(initSegment)
                    }
                    if !s.queue.isEmpty {
                        let first = s.queue.removeFirst()
                        s.queuedBytes -= first.count
                        return .some(first)
                    }
                    if s.ended || Task.isCancelled { return .some(nil) }
                    s.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            end()
        }
    }

    /// Ends the viewer: a waiting ``next()`` returns nil, and so does every later one.
    func end() {
        let waiter = state.withLock { s in
            s.ended = true
            s.queue.removeAll()
            s.queuedBytes = 0
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }
}
