import Foundation
import RecordKit

/// Outputs that come and go on the running capture: a `start` while a recording runs adds its
/// outputs to it (one capture, shared encoders), and `stop`, `discard`, `pause`, `resume` with an
/// output id act on that output alone (docs/ARCHITECTURE.md, "Lifecycle").
extension SessionLifecycle {
    /// Adds the outputs of `args` to `active` (call under ``locked(_:)``). Refused with `busy`
    /// when `args` name capture options other than the running capture's (they would need a
    /// second capture), and with `bad_argument` for an `--upload` other than the recording's
    /// (uploads belong to the recording). `--on-saved` applies to the joining outputs' files.
    /// The journal lists the new outputs (with their working directories) before they start,
    /// so a killed service leaves each one's files recoverable.
    func join(_ args: StartArguments, running active: ActiveRecording) throws(ControlError) -> ControlResult {
        let differences = args.captureDifferences(from: active.arguments)
        guard differences.isEmpty else {
            throw ControlError(.busy, "recording \(active.id) is \(active.session.state.rawValue) with other capture options: "
                               + differences.joined(separator: ", ")
                               + ". A start while it runs adds outputs to the same capture, so it may name only the same capture options "
                               + "(or none); stop the recording first to record with other ones")
        }
        if let upload = args.upload, upload != active.upload {
            throw ControlError(.badArgument, "--upload belongs to the recording (\(active.id)), not to one output: give it to the start "
                               + "that began the recording, or upload the file afterwards (recordctl upload FILE)")
        }
        let directory = store.directory(of: active.id) + "/handlers"
        let (added, startTime) = try active.session.attach(arguments: args, builtins: builtins, workingDirectory: directory, taken: active.outputNames)
        active.outputNames.formUnion(added.map(\.name))
        active.journal.handlers += added
        if !args.onSaved.isEmpty {
            let hooks = makeHooks(args, recordingId: active.id)
            for handler in added { active.outputHooks[handler.name] = hooks }
        }
        updateJournal(active, state: active.journal.state)
        for handler in added {
            events.publish(ServiceEvent(kind: "output-started", recordingId: active.id, state: active.session.state.rawValue,
                                        reason: "output \(handler.name) added to recording \(active.id)", handler: handler.name,
                                        time: startTime, at: RecordingService.now()))
        }
        var r = ControlResult()
        r.recordingId = active.id
        r.state = active.session.state.rawValue
        r.attached = added.map(\.name)
        return r
    }

    /// Stops the output `name` of the running recording alone (call under ``locked(_:)``): it is
    /// finalized and delivered (moved to `options.output` when given) while the capture and the
    /// other outputs go on. The recording's last output stops the recording (``finish(discard:deliver:)``).
    /// `name` may also be the recording's id: the whole recording stops.
    func stopOutput(_ name: String, options: CommandOptions?) throws(ControlError) -> ControlResult {
        let active = try current()
        let names = active.session.status.handlers.map(\.name)
        if name == active.id || names == [name] { return try stop(deliveringTo: options) }
        guard names.contains(name) else {
            throw ControlError(.badArgument, "recording \(active.id) has no output '\(name)'; its outputs are \(names.joined(separator: ", ")) "
                               + "(recordctl status lists them)")
        }
        let destination = options?.output
        if let destination { try OutputDelivery.check(destination, overwrite: options?.overwrite == true) }
        var (report, endTime) = try active.session.detach(name)
        var warnings: [String] = []
        if let error = report.error { warnings.append("\(name): \(error)") }
        if let destination, let source = report.serviceInfo["path"], report.state != .failed {
            do throws(ControlError) {
                try OutputDelivery.move(source, to: destination, overwrite: options?.overwrite == true)
                report.serviceInfo["path"] = destination
            } catch {
                warnings.append(error.message)
            }
        }
        let output = report.serviceInfo["path"] ?? report.serviceInfo["url"]
        if let path = report.serviceInfo["path"], report.state != .failed {
            announceSaved(active, path: path, kind: .recording, output: name)
            if let sink = fileSink.withLock({ $0 }) { sink(active, [path], false) }
        }
        // A handler that delivered everything left its directory empty: the journal forgets it.
        if let entry = active.journal.handlers.first(where: { $0.name == name }), let dir = entry.directory,
           (try? FileManager.default.contentsOfDirectory(atPath: dir))?.isEmpty ?? true {
            try? FileManager.default.removeItem(atPath: dir)
            active.journal.handlers.removeAll { $0.name == name }
        }
        updateJournal(active, state: active.journal.state)
        events.publish(ServiceEvent(kind: "output-stopped", recordingId: active.id, state: report.state == .failed ? "failed" : "finished",
                                    reason: "output \(name) of recording \(active.id) stopped" + (report.error.map { ": \($0)" } ?? ""),
                                    handler: name, time: endTime, at: RecordingService.now(), path: report.serviceInfo["path"]))
        var r = ControlResult()
        r.state = active.session.state.rawValue
        r.outputs = output.map { [$0] } ?? []
        if !warnings.isEmpty { r.warnings = warnings }
        return r
    }

    /// Discards the output `name` alone (call under ``locked(_:)``): the handler is told it is
    /// discarded and deletes what it wrote, its working directory and its journal entry go, and
    /// the capture and the other outputs go on. The recording's last output, or the recording's
    /// id, discards the whole recording (``finish(discard:deliver:)``), as `stop` does.
    func discardOutput(_ name: String) throws(ControlError) -> ControlResult {
        let active = try current()
        let names = active.session.status.handlers.map(\.name)
        if name == active.id || names == [name] { return try finish(discard: true) }
        guard names.contains(name) else {
            throw ControlError(.badArgument, "recording \(active.id) has no output '\(name)'; its outputs are \(names.joined(separator: ", ")) "
                               + "(recordctl status lists them)")
        }
        let (report, endTime) = try active.session.detach(name, discard: true)
        var removed: [String] = []
        if let path = report.serviceInfo["path"] { removed.append(path) }
        // Whatever the handler left in its working directory (a recovery note, a part) goes with
        // it: a discarded output leaves nothing for recovery to bring back.
        if let dir = active.journal.handlers.first(where: { $0.name == name })?.directory {
            let left = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted().map { dir + "/" + $0 }
            if (try? FileManager.default.removeItem(atPath: dir)) != nil { removed += left + [dir] }
        }
        active.journal.handlers.removeAll { $0.name == name }
        active.outputHooks[name] = nil
        updateJournal(active, state: active.journal.state)
        events.publish(ServiceEvent(kind: "output-discarded", recordingId: active.id, state: "discarded",
                                    reason: "output \(name) of recording \(active.id) discarded" + (report.error.map { ": \($0)" } ?? ""),
                                    handler: name, time: endTime, at: RecordingService.now(), path: report.serviceInfo["path"]))
        var r = ControlResult()
        r.state = active.session.state.rawValue
        r.removed = removed
        return r
    }

    /// Pauses (`pause: true`) or resumes the output `name` alone (call under ``locked(_:)``); the
    /// recording's id pauses or resumes the whole recording.
    func pauseOutput(_ name: String, pause: Bool) throws(ControlError) -> ControlResult {
        let active = try current()
        if name == active.id { return pause ? try self.pause() : try resume() }
        if pause { try active.session.pauseOutput(name) } else { try active.session.resumeOutput(name) }
        events.publish(ServiceEvent(kind: pause ? "output-paused" : "output-resumed", recordingId: active.id,
                                    state: active.session.state.rawValue, reason: "output \(name) \(pause ? "paused" : "resumed")",
                                    handler: name, time: active.session.status.recordedSeconds, at: RecordingService.now()))
        var r = ControlResult()
        r.state = pause ? "paused" : "recording"
        return r
    }
}
