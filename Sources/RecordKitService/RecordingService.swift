import Dispatch
import Foundation
import Glibc
import RecordKit
import RecordKitUploads
import Synchronization

/// The brain of `recordd`: owns at most one recording, answers control requests, streams
/// events, keeps each recording's session directory and journal, and recovers recordings an
/// earlier service left behind.
///
/// Threading: requests arrive on connection threads. Commands that change the recording are
/// serialized by `commands`; `status` and `events` never wait for them, and nothing a client
/// does (reading slowly, or never) can block a command: events go through each subscriber's
/// own bounded queue (``EventSubscriber``).
public final class RecordingService: @unchecked Sendable {
    private let paths: ServicePaths
    private let store: SessionStore
    private let commands = NSLock()
    private let shared = Mutex(Shared())
    private let onShutdown: @Sendable () -> Void
    /// The uploads the service owns (nil until ``startUploads(log:)``; RecordingService+Uploads).
    let uploadQueue = Mutex<UploadQueue?>(nil)

    private struct Shared {
        var active: ActiveRecording?
        var last: ServiceStatus.Ended?
        var recovered: [RecoveredSession] = []
        var subscribers: [EventSubscriber] = []
    }

    /// Creates the service; `onShutdown` runs after a `shutdown` request was answered.
    public init(paths: ServicePaths, onShutdown: @escaping @Sendable () -> Void) {
        self.paths = paths
        self.store = SessionStore(root: paths.sessionsDirectory)
        self.onShutdown = onShutdown
    }

    // MARK: Requests

    /// Answers one request (called on the connection's thread); nil when the reply was already
    /// sent (an `events` subscription acknowledges on its own queue).
    public func handle(_ request: ControlRequest, connection: LineConnection) -> ControlReply? {
        let id = request.id
        do throws(ControlError) {
            switch request.cmd {
            case .hello:
                var r = ControlResult()
                r.pid = getpid()
                r.version = ControlProtocol.version
                return .success(id, r)
            case .status:
                var r = ControlResult()
                r.status = status()
                return .success(id, r)
            case .events:
                let subscriber = EventSubscriber(connection: connection, acknowledgement: .success(id, ControlResult()))
                shared.withLock { s in
                    s.subscribers.removeAll { $0.isGone }
                    s.subscribers.append(subscriber)
                }
                return nil
            case .start:
                return .success(id, try locked { () throws(ControlError) in try start(request.args ?? StartArguments()) })
            case .stop:
                return .success(id, try locked { () throws(ControlError) in try finish(discard: false) })
            case .discard:
                return .success(id, try locked { () throws(ControlError) in try finish(discard: true) })
            case .pause:
                return .success(id, try locked { () throws(ControlError) in try pause() })
            case .resume:
                return .success(id, try locked { () throws(ControlError) in try resume() })
            case .mark:
                return .success(id, try mark(request.options ?? CommandOptions()))
            case .saveReplay:
                return .success(id, try saveReplay(request.options ?? CommandOptions()))
            case .split:
                return .success(id, try split())
            case .upload, .uploads, .uploadPause, .uploadResume, .uploadCancel:
                return .success(id, try handleUpload(request.cmd, request.options ?? CommandOptions()))
            case .shutdown:
                let r = try locked { () throws(ControlError) -> ControlResult in
                    if shared.withLock({ $0.active }) != nil { _ = try? finish(discard: false) }
                    var r = ControlResult()
                    r.state = "stopping"
                    return r
                }
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { [onShutdown] in onShutdown() }
                return .success(id, r)
            }
        } catch {
            return .failure(id, error)
        }
    }

    func locked<T>(_ body: () throws(ControlError) -> T) throws(ControlError) -> T {
        commands.lock()
        defer { commands.unlock() }
        return try body()
    }

    // MARK: Start

    private func start(_ args: StartArguments) throws(ControlError) -> ControlResult {
        if let active = shared.withLock({ $0.active }) {
            throw ControlError(.busy, "recording \(active.id) is \(active.session.state.rawValue) (started \(active.journal.startedAt)); stop or discard it first")
        }
        if let upload = args.upload { try Self.validate(upload) }
        let id = SessionStore.newID()
        let directory = try store.createDirectory(of: id)
        let box = ActiveBox()
        let session: RecordingSession
        do throws(ControlError) {
            session = try RecordingSession(arguments: args, workingDirectory: directory + "/handlers") { [weak self] event in
                guard let self, let active = box.active else { return }
                self.recorderEvent(event, of: active)
            }
        } catch {
            store.remove(id)
            throw error
        }
        installControlHandler(on: session)
        let journal = SessionJournal(id: id, state: "starting", startedAt: Self.now(), pid: getpid(), handlers: session.handlers)
        try store.write(journal)
        let active = ActiveRecording(id: id, journal: journal, session: session, upload: args.upload)
        box.active = active
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
        let warnings = session.status.warnings
        if !warnings.isEmpty { r.warnings = warnings }
        return r
    }

    // MARK: Pause, resume

    func pause() throws(ControlError) -> ControlResult {
        let active = try current()
        try active.session.pause()
        updateJournal(active, state: "paused")
        var r = ControlResult()
        r.state = active.session.state.rawValue
        return r
    }

    func resume() throws(ControlError) -> ControlResult {
        let active = try current()
        try active.session.resume()
        updateJournal(active, state: "recording")
        var r = ControlResult()
        r.state = active.session.state.rawValue
        return r
    }

    // MARK: Stop, discard

    func finish(discard: Bool) throws(ControlError) -> ControlResult {
        let active = try current()
        updateJournal(active, state: "finishing")
        let reports = discard ? active.session.discard() : active.session.stop()
        return conclude(active, reports: reports, discarded: discard)
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
        if !discarded { uploadOutputs(of: active, paths: outputs, wait: true) }
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
    private func hasUndelivered(_ active: ActiveRecording) -> Bool {
        active.journal.handlers.contains { handler in
            guard let directory = handler.directory,
                  let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
            return !names.isEmpty
        }
    }

    // MARK: Events

    private func recorderEvent(_ event: RecordingEvent, of active: ActiveRecording) {
        publish(ServiceEvent(kind: event.kind ?? (event.isWarning ? "warning" : event.handler == nil ? "state" : "handler"), recordingId: active.id,
                             state: event.state.rawValue, reason: event.reason, handler: event.handler, time: event.time, at: Self.now(),
                             path: event.path))
        if event.kind == "file-part", let path = event.path { uploadOutputs(of: active, paths: [path]) }
        guard event.handler == nil, event.state.isTerminal else { return }
        active.endReason = event.reason
        // A recording that ended by itself (window destroyed, every handler failed) is concluded
        // here; one ended by stop or discard was concluded by them before this runs.
        DispatchQueue.global().async { [self] in
            commands.lock()
            defer { commands.unlock() }
            if shared.withLock({ $0.active }) === active {
                _ = conclude(active, reports: active.session.status.handlers, discarded: false)
            }
        }
    }

    /// Queues `event` to every subscriber (never blocks); forgets those that are gone.
    func publish(_ event: ServiceEvent) {
        let subscribers = shared.withLock { s in
            s.subscribers.removeAll { $0.isGone }
            return s.subscribers
        }
        for s in subscribers { s.enqueue(ControlReply(ok: true, event: event)) }
    }

    // MARK: Status

    /// The status report.
    public func status() -> ServiceStatus {
        let (active, last, recovered) = shared.withLock { ($0.active, $0.last, $0.recovered) }
        var recording: ServiceStatus.Recording?
        if let active {
            let s = active.session.status
            recording = ServiceStatus.Recording(id: active.id, state: s.state.rawValue, pauseReason: s.pauseReason,
                                                destination: s.handlers.lazy.compactMap { $0.serviceInfo["path"] }.first, recorder: s)
        }
        return ServiceStatus(service: .init(pid: getpid(), version: ControlProtocol.version, socket: paths.socketPath),
                             recording: recording, last: last, recovered: recovered)
    }

    // MARK: Recovery

    /// Hands every session directory an earlier service left to the extensions that wrote it
    /// (their recovery hooks); reports each result in status and as an event. A session whose
    /// recovery failed is kept, and the failure is an event saying where it is.
    public func recoverInterruptedSessions() {
        for journal in store.journals() {
            let outcome = SessionRecovery.recover(journal)
            for path in outcome.delivered {
                let recovered = RecoveredSession(id: journal.id, path: path, seconds: nil, recoveredAt: Self.now())
                shared.withLock { $0.recovered.append(recovered) }
                publish(ServiceEvent(kind: "recovered", recordingId: journal.id, state: "recovered",
                                     reason: "recording interrupted in state \(journal.state) was recovered into \(path)", at: Self.now()))
            }
            if outcome.failures.isEmpty {
                store.remove(journal.id)
            } else {
                publish(ServiceEvent(kind: "recovered", recordingId: journal.id, state: "failed",
                                     reason: "recovering \(journal.id) failed (\(outcome.failures.joined(separator: "; "))); its files stay in \(store.directory(of: journal.id))",
                                     at: Self.now()))
            }
        }
        for dir in store.directoriesWithoutJournal() { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// Stops a recording in progress (on SIGTERM), finalizing its files.
    public func stopForShutdown() {
        commands.lock()
        defer { commands.unlock() }
        _ = try? finish(discard: false)
    }

    // MARK: Helpers

    func current() throws(ControlError) -> ActiveRecording {
        guard let active = shared.withLock({ $0.active }) else { throw NotRecordingError.make(last: shared.withLock { $0.last }) }
        return active
    }

    private func updateJournal(_ active: ActiveRecording, state: String) {
        active.journal.state = state
        try? store.write(active.journal)
    }

    static func now() -> String { ISO8601DateFormatter().string(from: Date()) }
}
