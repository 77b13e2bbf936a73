import Synchronization

/// Collects the refs of sample memory the handler no longer uses and gets them to the host.
///
/// A ``MediaBuffer`` built on shared memory calls ``release(_:)`` from its deinit, on whatever
/// thread drops the last reference. During a handler call the refs are kept and go out with the
/// call's `done`; at any other time they are sent at once in a `release` message.
final class ReleaseQueue: Sendable {
    private struct State {
        var inCall = false
        var pending: [Int] = []
    }
    private let state = Mutex(State())
    private let socket: PacketSocket

    /// Sends releases through `socket`.
    init(socket: PacketSocket) { self.socket = socket }

    /// A call starts: releases from now on wait for its `done`.
    func beginCall() { state.withLock { $0.inCall = true } }

    /// The call ended: returns the refs released during it.
    func endCall() -> [Int] {
        state.withLock { s in
            s.inCall = false
            defer { s.pending = [] }
            return s.pending
        }
    }

    /// The memory behind `ref` is no longer read.
    func release(_ ref: Int) {
        let sendNow: Bool = state.withLock { s in
            if s.inCall { s.pending.append(ref); return false }
            return true
        }
        if sendNow { try? socket.send(ExtensionMessage.release([ref]).jsonValue) }
    }
}
