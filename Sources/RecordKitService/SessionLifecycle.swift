import Dispatch
import Foundation
import Glibc
import RecordKit
import RecordKitExtensions
import RecordKitSupport
import Synchronization

/// The recording the service owns, from `start` to its conclusion: its session directory and
/// journal, pause and resume, stop and discard, and the conclusion of a recording that ended
/// by itself. At most one recording at a time.
///
/// Threading: commands that change the recording run one at a time under ``locked(_:)``;
/// ``current()`` and ``snapshot`` never wait for them. The recorder's events arrive on its own
/// threads and are published at once; a recording that ended by itself is concluded on a
/// global queue under the command lock.
final class SessionLifecycle: @unchecked Sendable {
    let store: SessionStore
    let builtins: [BuiltinExtension]
    let events: EventHub
    private let commands = NSLock()
    private let shared = Mutex(Shared())

    private struct Shared {
        var active: ActiveRecording?
        var last: ServiceStatus.Ended?
    }

    /// Takes the files a recording finished (`wait`: before returning): the uploads of
    /// `start --upload` (RecordingService+Uploads).
    typealias FileSink = @Sendable (_ active: ActiveRecording, _ paths: [String], _ wait: Bool) -> Void
    let fileSink = Mutex<FileSink?>(nil)

    /// Sets where finished files go (once, before requests are served).
    func setFileSink(_ sink: @escaping FileSink) { fileSink.withLock { $0 = sink } }

    /// Keeps session directories in `store`, builds handlers from the catalog of `builtins`,
    /// publishes lifecycle events to `events`.
    init(store: SessionStore, builtins: [BuiltinExtension], events: EventHub) {
        self.store = store
        self.builtins = builtins
        self.events = events
    }

    /// Runs `body` as the only command changing the recording.
    func locked<T>(_ body: () throws(ControlError) -> T) throws(ControlError) -> T {
        commands.lock()
        defer { commands.unlock() }
        return try body()
    }

    /// The recording in progress and the last one that ended, without waiting for a command.
    var snapshot: (active: ActiveRecording?, last: ServiceStatus.Ended?) { shared.withLock { ($0.active, $0.last) } }

    /// The recording in progress; `not_recording` (with how the last one ended) without one.
    func current() throws(ControlError) -> ActiveRecording {
        let (active, last) = snapshot
        guard let active else { throw NotRecordingError.make(last: last) }
        return active
    }

    // MARK: Start

    /// Starts a recording of `args` (call under ``locked(_:)``). While one runs, the outputs of
    /// `args` join it (``join(_:running:)``; `busy` when `args` name other capture options).
    func start(_ args: StartArguments) throws(ControlError) -> ControlResult {
        if let active = snapshot.active { return try join(args, running: active) }
        for upload in [args.upload, args.uploadReplays].compactMap({ $0 }) { try RecordingService.validate(upload) }
        let id = SessionStore.newID()
        let directory = try store.createDirectory(of: id)
        let box = LateBound<ActiveRecording>()
        let session: RecordingSession
        do throws(ControlError) {
            session = try RecordingSession(arguments: args, builtins: builtins, workingDirectory: directory + "/handlers") { [weak self] event in
                guard let self, let active = box.current else { return }
                self.recorderEvent(event, of: active)
            }
        } catch {
            store.remove(id)
            throw error
        }
        installControlHandler(on: session)
        let journal = SessionJournal(id: id, state: "starting", startedAt: RecordingService.now(), pid: getpid(), handlers: session.handlers)
        try store.write(journal)
        let active = ActiveRecording(id: id, journal: journal, session: session, hooks: makeHooks(args, recordingId: id), upload: args.upload,
                                     uploadReplays: args.uploadReplays, arguments: args)
        box.bind(active)
        do throws(ControlError) {
            try session.start()
        } catch {
            store.remove(id)
            throw error
        }
        shared.withLock { $0.active = active }
        _ = session.waitForFirstFrame(timeout: 2)
        updateJournal(active, state: "recording")

        var r = ControlResult()
        r.recordingId = id
        r.state = session.state.rawValue
        let warnings = session.optionWarnings + session.status.warnings
        if !warnings.isEmpty { r.warnings = warnings }
        return r
    }

    // MARK: Pause, resume

    /// Pauses at the user's request (call under ``locked(_:)``).
    func pause() throws(ControlError) -> ControlResult {
        let active = try current()
        try active.session.pause()
        updateJournal(active, state: "paused")
        var r = ControlResult()
        r.state = active.session.state.rawValue
        return r
    }

    /// Resumes (call under ``locked(_:)``).
    func resume() throws(ControlError) -> ControlResult {
        let active = try current()
        try active.session.resume()
        updateJournal(active, state: "recording")
        var r = ControlResult()
        r.state = active.session.state.rawValue
        return r
    }

    // MARK: Stop, discard

    /// Stops (finalizing every handler) or discards (deleting everything written) the recording
    /// in progress (call under ``locked(_:)``); `deliver` moves the recording's file (the first
    /// handler's `path`) and returns where it went, or throws and leaves it (a warning).
    func finish(discard: Bool, deliver: ((String) throws(ControlError) -> String)? = nil) throws(ControlError) -> ControlResult {
        let active = try current()
        updateJournal(active, state: "finishing")
        var reports = discard ? active.session.discard() : active.session.stop()
        var deliveryFailure: String?
        if let deliver, let i = reports.firstIndex(where: { $0.serviceInfo["path"] != nil && $0.state != .failed }),
           let source = reports[i].serviceInfo["path"] {
            do throws(ControlError) { reports[i].serviceInfo["path"] = try deliver(source) } catch { deliveryFailure = error.message }
        }
        var result = conclude(active, reports: reports, discarded: discard)
        if let deliveryFailure { result.warnings = (result.warnings ?? []) + [deliveryFailure] }
        return result
    }

    /// Stops a recording in progress, if any, finalizing its files (on SIGTERM or `shutdown`).
    func stopForShutdown() {
        commands.lock()
        defer { commands.unlock() }
        if snapshot.active != nil { _ = try? finish(discard: false) }
    }

    /// Records the end of `active`: its results, the session directory removed (kept when a
    /// handler could not deliver, so nothing is lost), `last` set.
    private func conclude(_ active: ActiveRecording, reports: [HandlerReport], discarded: Bool) -> ControlResult {
        var outputs: [String] = []
        var removed: [String] = []
        var failures: [String] = []
        for report in reports {
            if let error = report.error { failures.append("\(report.name): \(error)") }
            if discarded {
                if let path = report.serviceInfo["path"] { removed.append(path) }
            } else if let out = report.serviceInfo["path"] ?? report.serviceInfo["url"] {
                outputs.append(out)
                if let path = report.serviceInfo["path"], report.state != .failed { announceSaved(active, path: path, kind: .recording, output: report.name) }
            }
        }
        let keepDirectory = !discarded && hasUndelivered(active)
        if keepDirectory {
            failures.append("the recording's working files were kept in \(store.directory(of: active.id))")
            updateJournal(active, state: "failed")
        } else {
            removed += store.remove(active.id)
        }
        let state = keepDirectory ? "failed" : active.session.state.rawValue
        if !discarded, let sink = fileSink.withLock({ $0 }) { sink(active, outputs, true) }
        shared.withLock {
            $0.last = ServiceStatus.Ended(id: active.id, state: state, outputs: outputs, reason: active.endReason,
                                          errors: failures.isEmpty ? nil : failures)
            $0.active = nil
        }
        var r = ControlResult()
        r.state = state
        if discarded { r.removed = removed } else { r.outputs = outputs }
        if !failures.isEmpty { r.warnings = failures }
        return r
    }

    /// Whether a handler left work in its working directory: it could not deliver it (a
    /// handler empties its directory once everything is delivered).
    func hasUndelivered(_ active: ActiveRecording) -> Bool {
        active.journal.handlers.contains { handler in
            guard let directory = handler.directory,
                  let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
            return !names.isEmpty
        }
    }

    // MARK: Events

    private func recorderEvent(_ event: RecordingEvent, of active: ActiveRecording) {
        events.publish(ServiceEvent(kind: event.kind ?? (event.isWarning ? "warning" : event.handler == nil ? "state" : "handler"),
                                    recordingId: active.id, state: event.state.rawValue, reason: event.reason, handler: event.handler,
                                    time: event.time, at: RecordingService.now(), path: event.path))
        if event.kind == "file-part", let path = event.path {
            announceSaved(active, path: path, kind: .part, output: event.handler)
            if let sink = fileSink.withLock({ $0 }) { sink(active, [path], false) }
        }
        guard event.handler == nil, event.state.isTerminal else { return }
        active.endReason = event.reason
        // A recording that ended by itself (window destroyed, every handler failed) is concluded
        // here; one ended by stop or discard was concluded by them before this runs.
        DispatchQueue.global().async { [self] in
            commands.lock()
            defer { commands.unlock() }
            if snapshot.active === active {
                _ = conclude(active, reports: active.session.status.handlers, discarded: false)
            }
        }
    }

    func updateJournal(_ active: ActiveRecording, state: String) {
        active.journal.state = state
        try? store.write(active.journal)
    }
}
