import Foundation

extension RecordingService {
    /// `save-replay`: forwards the action `save-replay` to whichever handler of the recording
    /// performs it (the replay buffer; the service names no handler), waits for the clip to be
    /// written, publishes a `replay-saved` event with its path and returns it. Does not take the
    /// command lock: a save never delays pause, resume or stop (the handler's queue orders them).
    func saveReplay(_ options: CommandOptions) throws(ControlError) -> ControlResult {
        let active = try current()
        if let output = options.output, !output.hasPrefix("/") {
            throw ControlError(.badArgument, "--output must be an absolute path, got '\(output)'")
        }
        var arguments: [String: String] = [:]
        if let seconds = options.seconds {
            guard seconds > 0, seconds.isFinite else { throw ControlError(.badArgument, "--seconds must be positive, got \(seconds)") }
            arguments["seconds"] = String(seconds)
        }
        if let output = options.output { arguments["path"] = output }
        if options.overwrite == true { arguments["overwrite"] = "true" }
        let answer: (handler: String, result: [String: String])
        do throws(ControlError) {
            answer = try active.session.perform(action: "save-replay", arguments: arguments)
        } catch where error.code == .invalidState && (active.session.state == .recording || active.session.state == .paused) {
            throw ControlError(.invalidState, "this recording has no replay buffer; start one with `recordctl start --replay-buffer SECONDS`")
        }
        let path = answer.result["path"]
        let seconds = answer.result["seconds"].flatMap(Double.init)
        publish(ServiceEvent(kind: "replay-saved", recordingId: active.id, state: active.session.state.rawValue,
                             reason: "saved \(seconds.map { String($0) + " s" } ?? "a replay") to \(path ?? "?")",
                             handler: answer.handler, time: active.session.status.recordedSeconds, at: Self.now(), path: path))
        if let path { lifecycle.announceSaved(active, path: path, kind: .replay) }
        var r = ControlResult()
        r.path = path
        r.seconds = seconds
        r.state = active.session.state.rawValue
        do throws(ControlError) {
            r.uploads = try uploadClip(path, options: options.upload ?? active.uploadReplays, of: active)
        } catch {
            r.warnings = ["the clip was saved but not queued for upload: \(error.message)"]
        }
        return r
    }
}
