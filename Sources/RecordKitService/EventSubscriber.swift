import Dispatch
import Foundation
import Synchronization

/// One `events` subscriber: a bounded queue of its own and a writer thread of its own, so a
/// subscriber that reads slowly, or never, costs the service nothing but that queue.
///
/// ``enqueue(_:)`` never blocks. When more than ``capacity`` events wait, the subscriber has
/// fallen behind: the waiting events are dropped, a final `too_slow` error line is queued, and
/// the connection is closed once that line went out (or after ``graceSeconds``, for a peer
/// that reads nothing at all).
final class EventSubscriber: Sendable {
    /// Events allowed to wait.
    static let capacity = 256
    /// How long a subscriber that fell behind gets to read its final line. Generous: a client
    /// busy elsewhere for a few seconds (or on a loaded machine) still learns why it was dropped;
    /// a dropped subscriber holds one line and its connection meanwhile, nothing more.
    static let graceSeconds = 15.0

    private struct State {
        var queue: [ControlReply] = []
        var head = 0
        var closing = false
        var gone = false
    }
    private let connection: LineConnection
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Starts a writer for `connection`, whose first line is `acknowledgement`.
    init(connection: LineConnection, acknowledgement: ControlReply) {
        self.connection = connection
        state.withLock { $0.queue.append(acknowledgement) }
        Thread.detachNewThread { [self] in writeLoop() }
        wake.signal()
    }

    /// Whether the subscriber is gone (disconnected, or dropped for falling behind).
    var isGone: Bool { state.withLock { $0.gone || $0.closing } }

    /// Queues `reply`; never blocks. False when the subscriber is gone.
    @discardableResult
    func enqueue(_ reply: ControlReply) -> Bool {
        let (accepted, overflowed): (Bool, Bool) = state.withLock { s in
            if s.gone || s.closing { return (false, false) }
            if s.queue.count - s.head >= Self.capacity {
                let behind = s.queue.count - s.head
                s.queue = [.failure(nil, ControlError(.tooSlow, "this events subscriber fell \(behind) events behind and was disconnected; reconnect and read promptly"))]
                s.head = 0
                s.closing = true
                return (false, true)
            }
            s.queue.append(reply)
            return (true, false)
        }
        if accepted || overflowed { wake.signal() }
        if overflowed {
            let connection = self.connection
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.graceSeconds) { connection.abort() }
        }
        return accepted
    }

    /// Stops the writer and closes the connection.
    func close() {
        state.withLock { $0.gone = true }
        connection.abort()
        wake.signal()
    }

    private func writeLoop() {
        while true {
            wake.wait()
            while true {
                let next: (ControlReply, last: Bool)? = state.withLock { s in
                    if s.gone || s.head >= s.queue.count { return nil }
                    let reply = s.queue[s.head]
                    s.head += 1
                    if s.head > 64, s.head * 2 > s.queue.count { s.queue.removeFirst(s.head); s.head = 0 }
                    return (reply, s.closing && s.head >= s.queue.count)
                }
                guard let (reply, last) = next else { break }
                if !connection.send(reply) || last {
                    state.withLock { $0.gone = true }
                    connection.abort()
                    return
                }
            }
            if state.withLock({ $0.gone }) { return }
        }
    }
}
