/// The recorder's state machine: `idle → starting → recording ⇄ paused → finishing →
/// finished | discarded | failed` (docs/ARCHITECTURE.md, "Lifecycle"), and who holds a pause: the user, the background
/// (a hidden window, a locked screen), or both. A value type: the ``Recorder`` keeps it under
/// its lock and acts on the transitions it returns.
struct RecorderLifecycle: Sendable {
    /// The current state.
    private(set) var state: RecorderState = .idle
    /// Whether the user asked for the pause (it outlives a background pause that ends).
    private(set) var userPaused = false
    /// Why the recording is in the background, when it is ("window minimized", "screen locked").
    private(set) var backgroundReason: String?

    /// What a request did to the state.
    enum Effect: Equatable {
        /// Nothing to do (already in the asked state, or the pause has another holder).
        case none
        /// The recording paused: cut the timeline, tell the handlers.
        case paused
        /// The recording resumed.
        case resumed
    }

    private static let allowed: [RecorderState: Set<RecorderState>] = [
        .idle: [.starting, .failed],
        .starting: [.recording, .failed],
        .recording: [.paused, .finishing],
        .paused: [.recording, .finishing],
        .finishing: [.finished, .discarded, .failed],
    ]

    /// Moves to `next` if the lifecycle allows it from the current state; true if it moved.
    mutating func move(to next: RecorderState) -> Bool {
        guard Self.allowed[state]?.contains(next) == true else { return false }
        state = next
        return true
    }

    /// The user pauses. Throws when nothing records.
    mutating func userPause() throws(RecorderError) -> Effect {
        guard state == .recording || state == .paused else {
            throw RecorderError(.invalidState, "cannot pause: the recording is \(state.rawValue)")
        }
        userPaused = true
        return move(to: .paused) ? .paused : .none
    }

    /// The user resumes. Throws when not paused, or when the background holds the pause.
    mutating func userResume() throws(RecorderError) -> Effect {
        guard state == .paused else { throw RecorderError(.invalidState, "cannot resume: the recording is \(state.rawValue)") }
        if let backgroundReason {
            userPaused = false
            throw RecorderError(.invalidState, "paused because of \(backgroundReason); recording resumes by itself when that ends")
        }
        userPaused = false
        return move(to: .recording) ? .resumed : .none
    }

    /// The recording went to the background for `reason`.
    mutating func background(_ reason: String) -> Effect {
        backgroundReason = reason
        return state == .recording && move(to: .paused) ? .paused : .none
    }

    /// The background reason ended; resumes unless the user paused too.
    mutating func foreground() -> Effect {
        backgroundReason = nil
        return state == .paused && !userPaused && move(to: .recording) ? .resumed : .none
    }

    /// Why the recording is paused, when it is: the background's reason, else "user".
    var pauseReason: String? { state == .paused ? (backgroundReason ?? "user") : nil }
}
