import Dispatch
import FileUploadExtension
import Foundation
import Glibc
import RecordKit
import RecordKitCapture
import RecordKitPipeline
import Synchronization

/// The brain of `recordd`: owns at most one recording, answers control requests, streams
/// events, keeps each recording's session directory and journal, and recovers recordings an
/// earlier service left behind.
///
/// Threading: requests arrive on connection threads. Commands that change the recording are
/// serialized by `commands`; `status` and `events` never wait for them.
public final class RecordingService: @unchecked Sendable {
    private let paths: ServicePaths
    private let store: SessionStore
    private let commands = NSLock()
    private let shared = Mutex(Shared())
    private let onShutdown: @Sendable () -> Void

    private struct Shared {
        var active: ActiveRecording?
        var last: ServiceStatus.Ended?
        var recovered: [RecoveredSession] = []
        var subscribers: [LineConnection] = []
    }

    /// Creates the service; `onShutdown` runs after a `shutdown` request was answered.
    public init(paths: ServicePaths, onShutdown: @escaping @Sendable () -> Void) {
        self.paths = paths
        self.store = SessionStore(root: paths.sessionsDirectory)
        self.onShutdown = onShutdown
    }

    // MARK: Requests

    /// Answers one request (called on the connection's thread).
    public func handle(_ request: ControlRequest, connection: LineConnection) -> ControlReply? {
        let id = request.id
        do throws(ControlError) {
            switch request.cmd {
            case "hello":
                var r = ControlResult()
                r.pid = getpid()
                r.version = ControlProtocol.version
                return .success(id, r)
            case "status":
                var r = ControlResult()
                r.status = status()
                return .success(id, r)
            case "events":
                shared.withLock { $0.subscribers.append(connection) }
                return .success(id, ControlResult())
            case "start":
                return .success(id, try locked { () throws(ControlError) in try start(request.args ?? StartArguments()) })
            case "stop":
                return .success(id, try locked { () throws(ControlError) in try finish(discard: false) })
            case "discard":
                return .success(id, try locked { () throws(ControlError) in try finish(discard: true) })
            case "pause":
                return .success(id, try locked { () throws(ControlError) in try pause() })
            case "resume":
                return .success(id, try locked { () throws(ControlError) in try resume() })
            case "shutdown":
                let r = try locked { () throws(ControlError) -> ControlResult in
                    if shared.withLock({ $0.active }) != nil { _ = try? finish(discard: false) }
                    var r = ControlResult()
                    r.state = "stopping"
                    return r
                }
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { [onShutdown] in onShutdown() }
                return .success(id, r)
            default:
                throw ControlError("unknown_command", "unknown command '\(request.cmd)'; known: hello, start, stop, discard, pause, resume, status, events, shutdown")
            }
        } catch {
            return .failure(id, error)
        }
    }

    private func locked<T>(_ body: () throws(ControlError) -> T) throws(ControlError) -> T {
        commands.lock()
        defer { commands.unlock() }
        return try body()
    }

    // MARK: Start

    private func start(_ args: StartArguments) throws(ControlError) -> ControlResult {
        if let active = shared.withLock({ $0.active }) {
            throw ControlError("busy", "recording \(active.id) is \(active.recorder?.state.rawValue ?? "starting") (started \(active.journal.startedAt)); stop or discard it first")
        }
        let configuration = try args.recordingConfiguration()
        let policy = try args.backgroundPolicy()
        let extensions = try HandlerFactory.registrations(for: args.extensions, extensionsDirectories: args.extensionsDirs)
        let id = SessionStore.newID()
        let plan = try OutputPlan(args: args, sessionDirectory: store.directory(of: id))
        let encoding = try args.resolvedEncoding(container: plan.container.rawValue)
        let journal = SessionJournal(id: id, state: "starting", destination: plan.destination, workingFile: plan.workingFile,
                                     container: plan.container.rawValue, startedAt: ISO8601DateFormatter().string(from: Date()), pid: getpid())
        try store.create(journal)

        let registrations = HandlerFactory.registrations(file: plan.fileOptions, rtmp: args.rtmp, encoding: encoding) + extensions
        let active = ActiveRecording(id: id, journal: journal, destination: plan.destination)
        let recorder = Recorder(configuration: configuration, handlers: registrations) { [weak self, weak active] event in
            guard let self, let active else { return }
            self.recorderEvent(event, of: active)
        }
        active.recorder = recorder
        do throws(RecorderError) {
            try recorder.start()
        } catch {
            store.remove(id)
            throw error.controlError
        }
        shared.withLock { $0.active = active }
        _ = recorder.waitForFirstFrame(timeout: 2)
        updateJournal(active, state: "recording")
        startBackgroundMonitor(for: active, configuration: configuration, policy: policy)

        var r = ControlResult()
        r.recordingId = id
        r.state = recorder.state.rawValue
        let warnings = encoding.notes + recorder.status.warnings
        if !warnings.isEmpty { r.warnings = warnings }
        return r
    }

    private func startBackgroundMonitor(for active: ActiveRecording, configuration: RecordingConfiguration, policy: PauseOnBackgroundPolicy) {
        var window: UInt?
        if case .window = configuration.screen.target { window = active.recorder?.capturedWindowID }
        guard let monitor = try? BackgroundMonitor(display: configuration.screen.display, window: window, policy: policy) else { return }
        active.monitor = monitor
        monitor.start { [weak self, weak active] change in
            guard let self, let active else { return }
            self.backgroundChanged(change, of: active)
        }
    }

    private func backgroundChanged(_ change: BackgroundChange, of active: ActiveRecording) {
        commands.lock()
        defer { commands.unlock() }
        guard shared.withLock({ $0.active }) === active, let recorder = active.recorder else { return }
        switch change {
        case .background(let reason):
            active.autoPauseReason = reason.description
            if recorder.state == .recording { try? recorder.pause(reason: reason.description) }
        case .foreground(let previous):
            active.autoPauseReason = nil
            if recorder.state == .paused && !active.userPaused { try? recorder.resume(reason: "\(previous.description) ended") }
        case .windowDestroyed:
            break  // The capture notices too and finishes the recording with that reason.
        }
    }

    // MARK: Pause, resume

    private func pause() throws(ControlError) -> ControlResult {
        guard let active = shared.withLock({ $0.active }), let recorder = active.recorder else { throw Self.notRecording }
        if recorder.state == .paused {
            active.userPaused = true
        } else {
            do throws(RecorderError) { try recorder.pause(reason: "user") } catch { throw error.controlError }
            active.userPaused = true
        }
        updateJournal(active, state: "paused")
        var r = ControlResult()
        r.state = recorder.state.rawValue
        return r
    }

    private func resume() throws(ControlError) -> ControlResult {
        guard let active = shared.withLock({ $0.active }), let recorder = active.recorder else { throw Self.notRecording }
        if let reason = active.autoPauseReason {
            active.userPaused = false
            throw ControlError("invalid_state", "paused because of \(reason); recording resumes by itself when that ends")
        }
        do throws(RecorderError) { try recorder.resume(reason: "user") } catch { throw error.controlError }
        active.userPaused = false
        updateJournal(active, state: "recording")
        var r = ControlResult()
        r.state = recorder.state.rawValue
        return r
    }

    // MARK: Stop, discard

    private func finish(discard: Bool) throws(ControlError) -> ControlResult {
        guard let active = shared.withLock({ $0.active }), let recorder = active.recorder else { throw Self.notRecording }
        active.monitor?.stop()
        updateJournal(active, state: "finishing")
        let snapshots = discard ? recorder.discard(reason: "user") : recorder.stop(reason: "user")
        return conclude(active, snapshots: snapshots, discarded: discard)
    }

    /// Records the end of `active`: its results, the session directory removed, `last` set.
    private func conclude(_ active: ActiveRecording, snapshots: [HandlerSnapshot], discarded: Bool) -> ControlResult {
        active.monitor?.stop()
        var outputs: [String] = []
        var removed: [String] = []
        for s in snapshots {
            if discarded {
                if let path = s.serviceInfo["path"] { removed.append(path) }
            } else if let out = s.serviceInfo["path"] ?? s.serviceInfo["url"] {
                outputs.append(out)
            }
        }
        removed += store.remove(active.id)
        let state = active.recorder?.state.rawValue ?? "finished"
        shared.withLock {
            $0.last = ServiceStatus.Ended(id: active.id, state: state, outputs: outputs, reason: active.endReason)
            $0.active = nil
        }
        var r = ControlResult()
        r.state = state
        if discarded { r.removed = removed } else { r.outputs = outputs }
        return r
    }

    // MARK: Events

    private func recorderEvent(_ event: RecorderEvent, of active: ActiveRecording) {
        publish(ServiceEvent(kind: event.handler == nil ? "state" : "handler", recordingId: active.id, state: event.state.rawValue,
                             reason: event.reason, handler: event.handler, time: event.time, at: Self.now()))
        guard event.handler == nil else { return }
        if event.state.isTerminal { active.endReason = event.reason }
        // A recording that ended by itself (window destroyed, every handler failed) is concluded
        // here; one ended by stop or discard was concluded by them before this runs.
        if event.state.isTerminal {
            DispatchQueue.global().async { [self] in
                commands.lock()
                defer { commands.unlock() }
                if shared.withLock({ $0.active }) === active, let recorder = active.recorder {
                    _ = conclude(active, snapshots: recorder.status.handlers, discarded: false)
                }
            }
        }
    }

    /// Sends `event` to every subscriber; drops those that went away.
    func publish(_ event: ServiceEvent) {
        let subscribers = shared.withLock { $0.subscribers }
        var gone: [ObjectIdentifier] = []
        for s in subscribers where !s.send(ControlReply(ok: true, event: event)) { gone.append(ObjectIdentifier(s)) }
        if !gone.isEmpty { shared.withLock { $0.subscribers.removeAll { gone.contains(ObjectIdentifier($0)) } } }
    }

    // MARK: Status

    /// The status report.
    public func status() -> ServiceStatus {
        let (active, last, recovered) = shared.withLock { ($0.active, $0.last, $0.recovered) }
        var recording: ServiceStatus.Recording?
        if let active, let recorder = active.recorder {
            let s = recorder.status
            recording = ServiceStatus.Recording(id: active.id, state: s.state.rawValue,
                                                pauseReason: s.state == .paused ? (active.autoPauseReason ?? "user") : nil,
                                                destination: active.destination, recorder: s)
        }
        return ServiceStatus(service: .init(pid: getpid(), version: ControlProtocol.version, socket: paths.socketPath),
                             recording: recording, last: last, recovered: recovered)
    }

    // MARK: Recovery

    /// Turns every session directory left by an earlier service into a playable file at its
    /// destination; reports each in status and as an event.
    public func recoverInterruptedSessions() {
        for journal in store.journals() {
            let recovered = SessionRecovery.recover(journal)
            store.remove(journal.id)
            guard let recovered else { continue }
            shared.withLock { $0.recovered.append(recovered) }
            publish(ServiceEvent(kind: "recovered", recordingId: journal.id, state: "recovered",
                                 reason: "recording interrupted in state \(journal.state) was recovered into \(recovered.path)", at: Self.now()))
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

    private func updateJournal(_ active: ActiveRecording, state: String) {
        active.journal.state = state
        try? store.write(active.journal)
    }

    private static let notRecording = ControlError("not_recording", "nothing is recording; start one with `recordctl start`")

    static func now() -> String { ISO8601DateFormatter().string(from: Date()) }
}

/// The service's view of the recording in progress. Mutated under the service's command lock.
final class ActiveRecording: @unchecked Sendable {
    let id: String
    var journal: SessionJournal
    let destination: String
    var recorder: Recorder?
    var monitor: BackgroundMonitor?
    var userPaused = false
    var autoPauseReason: String?
    var endReason: String?

    init(id: String, journal: SessionJournal, destination: String) {
        self.id = id
        self.journal = journal
        self.destination = destination
    }
}
