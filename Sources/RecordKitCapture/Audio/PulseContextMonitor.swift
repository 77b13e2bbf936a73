import CPulse
import Dispatch
import Synchronization

/// Follows a `pa_context`'s state for ``PulseAudioConnection`` and reports the server going away.
///
/// It is the context state callback's userdata. The connection keeps it alive and clears the
/// callback (under the loop lock) before letting it go, so the callback never sees a dead object.
/// Its own state is behind a `Mutex`, so `isConnected` and `onDisconnect` work from any thread.
final class PulseContextMonitor: @unchecked Sendable {
    /// Where the connection stands.
    enum Phase: Sendable, Equatable {
        /// `pa_context_connect` issued, not yet READY or FAILED.
        case connecting
        /// READY: streams may be opened.
        case ready
        /// FAILED or TERMINATED, with libpulse's reason.
        case failed(String)
        /// ``PulseAudioConnection/close()`` was called.
        case closed
    }

    private struct State {
        var phase = Phase.connecting
        var onDisconnect: (@Sendable (String) -> Void)?
    }

    private let loop: PulseMainloop
    private let state = Mutex(State())
    private let events = DispatchQueue(label: "RecordKit.PulseAudioConnection.events")
    /// Names the server in messages ("unix:/run/pulse.sock").
    let serverDescription: String

    init(loop: PulseMainloop, serverDescription: String) {
        self.loop = loop
        self.serverDescription = serverDescription
    }

    /// The current phase.
    var phase: Phase { state.withLock { $0.phase } }

    /// The disconnect handler; see ``PulseAudioConnection/onDisconnect``.
    var onDisconnect: (@Sendable (String) -> Void)? {
        get { state.withLock { $0.onDisconnect } }
        set { state.withLock { $0.onDisconnect = newValue } }
    }

    /// Marks the connection closed. Returns false if it already was.
    func markClosed() -> Bool {
        state.withLock { s in
            if s.phase == .closed { return false }
            s.phase = .closed
            return true
        }
    }

    /// Registers ``contextStateChanged(_:)`` as `context`'s state callback. Loop lock held.
    func attach(to context: OpaquePointer) {
        pa_context_set_state_callback(context, { context, userdata in
            guard let context, let userdata else { return }
            Unmanaged<PulseContextMonitor>.fromOpaque(userdata).takeUnretainedValue().contextStateChanged(context)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Removes the state callback. Loop lock held.
    func detach(from context: OpaquePointer) {
        pa_context_set_state_callback(context, nil, nil)
    }

    /// Called on the loop thread (lock held) whenever the context changes state.
    private func contextStateChanged(_ context: OpaquePointer) {
        let contextState = pa_context_get_state(context)
        if contextState == PA_CONTEXT_READY {
            state.withLock { s in if s.phase == .connecting { s.phase = .ready } }
        } else if contextState == PA_CONTEXT_FAILED || contextState == PA_CONTEXT_TERMINATED {
            let why = String(cString: pa_strerror(pa_context_errno(context)))
            let handler: (@Sendable (String) -> Void)? = state.withLock { s in
                switch s.phase {
                case .connecting:
                    s.phase = .failed(why)
                    return nil
                case .ready:
                    s.phase = .failed(why)
                    return s.onDisconnect
                case .failed, .closed:
                    return nil
                }
            }
            if let handler {
                let reason = "lost the PulseAudio server \(serverDescription): \(why)"
                events.async { handler(reason) }
            }
        }
        loop.signal()
    }
}
