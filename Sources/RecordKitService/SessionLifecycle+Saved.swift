import Foundation

extension SessionLifecycle {
    /// The `on-saved` hooks of a recording started with `args`; each one's end is an event
    /// (`hook-finished`, or `hook-failed` for a non-zero status, a signal, a timeout), never a
    /// change to the recording.
    func makeHooks(_ args: StartArguments, recordingId: String) -> SavedFileHooks {
        SavedFileHooks(commands: args.onSaved, timeout: args.hookTimeout, recordingId: recordingId) { [weak self] report in
            self?.events.publish(ServiceEvent(kind: report.outcome.succeeded ? "hook-finished" : "hook-failed", recordingId: recordingId,
                                       reason: "on-saved hook for \(report.kind.rawValue) \(report.path) \(report.outcome.summary)",
                                       at: RecordingService.now(), path: report.path))
        }
    }

    /// A file of `active` is final: a `recording-saved` event for the recording's own file (parts
    /// and clips have their `file-part` and `replay-saved` events), then its hooks: those of
    /// `output` when it joined with its own, else the recording's.
    func announceSaved(_ active: ActiveRecording, path: String, kind: SavedFileKind, output: String? = nil) {
        if kind == .recording {
            events.publish(ServiceEvent(kind: "recording-saved", recordingId: active.id, state: active.session.state.rawValue,
                                 reason: "saved the recording to \(path)", time: active.session.status.recordedSeconds,
                                 at: RecordingService.now(), path: path))
        }
        (output.flatMap { active.outputHooks[$0] } ?? active.hooks).saved(path: path, kind: kind)
    }
}
