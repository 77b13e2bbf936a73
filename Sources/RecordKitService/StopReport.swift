import Foundation
import Glibc
import RecordKitPipeline

/// What `stop` tells about each handler's result, and whether the recording could be kept
/// where it was going (docs/PROTOCOL.md, "stop").
///
/// `stop` never reports success for a recording it could not keep: when the file could not be
/// moved to its destination (a full disk, a directory gone), the working file stays in the
/// session directory (the service does not remove it, and the next service start retries the
/// move), the empty placeholder at the destination is removed, and the reply is a `failed`
/// error that says where the recording is. A failed endpoint or extension is listed in
/// `failures` with its error (the key of any URL masked).
struct StopReport {
    /// Each handler's result: a file path, or an endpoint's masked URL.
    var outputs: [String] = []
    /// `"name: error"` for every handler that failed.
    var failures: [String] = []
    /// The working file kept in the session directory, when the recording could not be delivered.
    var keptWorkingFile: String?

    /// An empty report (a discarded recording).
    init() {}

    /// Reads the handlers' final snapshots of a recording that was stopped (not discarded).
    init(snapshots: [HandlerSnapshot], workingFile: String, destination: String) {
        for s in snapshots {
            if let out = s.serviceInfo["path"] ?? s.serviceInfo["url"] {
                // A file that did not reach its destination is not an output.
                if !(s.state == .failed && out == destination && Self.size(of: destination) == 0) { outputs.append(out) }
            }
            if s.state == .failed {
                let shown = s.serviceInfo["url"].map { " (\($0))" } ?? ""
                failures.append("\(s.name)\(shown): \(s.error ?? "failed")")
            }
        }
        if Self.size(of: workingFile) ?? 0 > 0 { keptWorkingFile = workingFile }
        // An empty destination is only the placeholder the file handler reserved it with: the
        // recording was kept elsewhere, or produced nothing. Never leave it behind.
        if Self.size(of: destination) == 0 { unlink(destination) }
    }

    /// The error `stop` answers with when the recording was kept in the session directory.
    var keptError: ControlError? {
        guard let kept = keptWorkingFile else { return nil }
        let why = failures.first(where: { $0.hasPrefix("file") }) ?? "the file could not be moved to its destination"
        return ControlError("failed", "the recording could not be kept at its destination (\(why)); it is kept in \(kept): "
                            + "move it yourself, or free space and restart the service (recordctl service stop), which retries the move")
    }

    /// `not_recording`, saying how the last recording ended when it ended by itself (a failure
    /// the user should not miss because the recording was already over when they asked to stop).
    static func notRecording(last: ServiceStatus.Ended?) -> ControlError {
        var message = "nothing is recording; start one with `recordctl start`"
        if let last, last.state == "failed" {
            message += ". The last recording (\(last.id)) failed: \(last.reason ?? "unknown reason")"
            if let kept = last.kept { message += "; it is kept in \(kept)" }
        }
        return ControlError("not_recording", message)
    }

    private static func size(of path: String) -> Int64? {
        var st = stat()
        return stat(path, &st) == 0 ? Int64(st.st_size) : nil
    }
}
