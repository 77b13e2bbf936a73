import RecordKit

/// One output's own pause, resume and end on the shared timeline (``OutputWindow``).
extension HandlerRunner {
    /// Pauses this output alone from broadcast time `atNs` (the others go on), and queues
    /// `broadcastPaused()`; false when it was paused already.
    func pauseOutput(at atNs: Int64) -> Bool {
        let changed: Bool = withWindow { w in
            if w.isPaused { return false }
            w.pause(at: atNs)
            return true
        }
        if changed {
            pausedAlone.store(true, ordering: .relaxed)
            paused()
        }
        return changed
    }

    /// Resumes this output at the first key frame from broadcast time `atNs`, and queues
    /// `broadcastResumed()`; false when it was not paused.
    func resumeOutput(at atNs: Int64) -> Bool {
        let changed: Bool = withWindow { w in
            if !w.isPaused { return false }
            w.resume(at: atNs)
            return true
        }
        if changed {
            pausedAlone.store(false, ordering: .relaxed)
            resumed()
        }
        return changed
    }

    /// Ends this output's stream at broadcast time `atNs` (before it is detached).
    func cut(at atNs: Int64) { withWindow { $0.cut(at: atNs) } }

    /// Whether every stream of this output reached its cut (nothing of it is still in an encoder).
    var hasPassedCut: Bool {
        let types = Set(routes.map(\.type))
        return withWindow { $0.hasPassed(types) }
    }

    /// Whether the output waits for a key frame (attached or resumed a moment ago).
    var awaitsKeyFrame: Bool { withWindow { $0.awaitsKeyFrame } }
}
