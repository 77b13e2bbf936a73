/// How one hook command ended.
package struct HookOutcome: Sendable, Equatable {
    /// How it ended.
    package enum Ending: Sendable, Equatable {
        /// It exited with this status (0 is success).
        case exited(Int32)
        /// A signal ended it (not the timeout's).
        case signalled(Int32)
        /// It ran longer than its time bound and was ended (SIGTERM, then SIGKILL 2 s later).
        case timedOut(seconds: Double)
        /// It could not be started (the error says why).
        case notStarted(String)
    }
    /// How it ended.
    package var ending: Ending
    /// The first ``HookProcess/maxOutputBytes`` bytes it wrote to stdout and stderr, as text.
    package var output: String
    /// Wall-clock seconds it ran.
    package var seconds: Double

    /// Whether the hook succeeded (exit status 0).
    package var succeeded: Bool { ending == .exited(0) }

    /// One line for people: "exited with status 3", "ended after 5 s (time bound)".
    package var summary: String {
        switch ending {
        case .exited(let status): return status == 0 ? "succeeded" : "exited with status \(status)"
        case .signalled(let signal): return "was killed by signal \(signal)"
        case .timedOut(let bound): return "ran longer than its bound of \(bound) s and was ended"
        case .notStarted(let why): return "could not be started: \(why)"
        }
    }
}
