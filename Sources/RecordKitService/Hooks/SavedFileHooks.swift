import Dispatch
import Foundation
import Glibc

/// Runs a recording's `on-saved` commands once for each file that became final, one after the
/// other on a serial queue of their own (never on a recording's, capture's or the control
/// protocol's threads), so a slow, failing or hanging hook delays only the next hook.
///
/// Each command gets the path as `$1` and the kind as `$2`, and `RECORDKIT_SAVED_PATH`,
/// `RECORDKIT_SAVED_KIND`, `RECORDKIT_RECORDING_ID` in its environment. Its output goes to
/// `log`, and how it ended to `report` (an event: `hook-finished` or `hook-failed`).
package final class SavedFileHooks: Sendable {
    /// One finished hook, for the service's events.
    package struct Report: Sendable {
        /// The command as configured.
        package var command: String
        /// The file it ran for.
        package var path: String
        /// The file's kind.
        package var kind: SavedFileKind
        /// How it ended.
        package var outcome: HookOutcome
    }

    /// The commands, in order (blank ones dropped).
    package let commands: [String]
    /// Each command's bound in seconds.
    package let timeout: Double
    private let recordingId: String
    private let queue = DispatchQueue(label: "recordkit.hooks")
    private let report: @Sendable (Report) -> Void
    private let log: @Sendable (String) -> Void

    /// Hooks for one recording; nothing runs until ``saved(path:kind:)``. `report` and `log`
    /// are called on the hooks' queue.
    package init(commands: [String], timeout: Double?, recordingId: String,
                report: @escaping @Sendable (Report) -> Void = { _ in },
                log: @escaping @Sendable (String) -> Void = SavedFileHooks.logToStandardError) {
        self.commands = commands.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        self.timeout = (timeout ?? HookDefaults.timeoutSeconds) > 0 ? (timeout ?? HookDefaults.timeoutSeconds) : HookDefaults.timeoutSeconds
        self.recordingId = recordingId
        self.report = report
        self.log = log
    }

    /// Whether any command is configured.
    package var isEmpty: Bool { commands.isEmpty }

    /// Queues every command for `path` (returns at once); `environment` adds variables (never
    /// a secret: hooks' output goes to the log).
    package func saved(path: String, kind: SavedFileKind, environment: [String: String] = [:]) {
        guard !commands.isEmpty else { return }
        let (commands, timeout, id, report, log) = (self.commands, self.timeout, recordingId, self.report, self.log)
        let variables = environment.merging(["RECORDKIT_SAVED_PATH": path, "RECORDKIT_SAVED_KIND": kind.rawValue,
                                             "RECORDKIT_RECORDING_ID": id]) { _, fixed in fixed }
        queue.async {
            for command in commands {
                let outcome = HookProcess.run(command: command, arguments: [path, kind.rawValue], environment: variables, timeout: timeout)
                let output = outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
                log("on-saved hook for \(kind.rawValue) \(path) \(outcome.summary) after \(String(format: "%.2f", outcome.seconds)) s"
                    + (output.isEmpty ? "" : "; its output:\n" + output))
                report(Report(command: command, path: path, kind: kind, outcome: outcome))
            }
        }
    }

    /// Waits until every hook queued so far has ended (at most `timeout` seconds); true if they did.
    @discardableResult
    package func waitUntilIdle(timeout: Double) -> Bool {
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        return done.wait(timeout: .now() + timeout) == .success
    }

    /// Writes one timestamped line to standard error (the service's log).
    package static let logToStandardError: @Sendable (String) -> Void = { message in
        let line = "\(ISO8601DateFormatter().string(from: Date())) recordkit[\(getpid())]: \(SecretRedactor.redact(message))\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
