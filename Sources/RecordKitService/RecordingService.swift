import Dispatch
import Foundation
import Glibc
import RecordKit
import RecordKitExtensions
import RecordKitUploads
import Synchronization

/// The brain of `recordd`: answers control requests by routing each to the part that owns it:
/// the recording's lifecycle (``SessionLifecycle``: start, pause, resume, stop, discard, and the
/// verbs that act on a running recording), the event subscribers (``EventHub``) and the recovery
/// of recordings an earlier service left behind (``SessionRecovery``).
///
/// Threading: requests arrive on connection threads. Commands that change the recording are
/// serialized by the lifecycle's lock; `status` and `events` never wait for them, and nothing a
/// client does (reading slowly, or never) can block a command: events go through each
/// subscriber's own bounded queue (``EventSubscriber``).
package final class RecordingService: Sendable {
    private let paths: ServicePaths
    let lifecycle: SessionLifecycle
    let events = EventHub()
    private let recovery: SessionRecovery
    private let onShutdown: @Sendable () -> Void
    /// Whether a recording could start now (``startAvailabilityMonitor()``).
    let availabilityMonitor = AvailabilityMonitor()
    /// The uploads the service owns (nil until ``startUploads(log:)``; RecordingService+Uploads).
    let uploadQueue = Mutex<UploadQueue?>(nil)
    /// The `on-saved` hooks of each recording with uploads, by recording id, run again when one
    /// of its uploads completes (kind `upload`); the config file's `[hooks]` under "" for the rest.
    let uploadHooks = Mutex<[String: SavedFileHooks]>([:])

    /// Creates the service. Every handler, built-in or not, comes by name from the catalog made
    /// of `builtins` (what the executable links) and the extension directories. `onShutdown`
    /// runs after a `shutdown` request was answered.
    package init(paths: ServicePaths, builtins: [BuiltinExtension], onShutdown: @escaping @Sendable () -> Void) {
        self.paths = paths
        let store = SessionStore(root: paths.sessionsDirectory)
        self.lifecycle = SessionLifecycle(store: store, builtins: builtins, events: events)
        self.recovery = SessionRecovery(store: store, catalog: ExtensionCatalog.discover(builtins: builtins), events: events)
        self.onShutdown = onShutdown
    }

    // MARK: Requests

    /// Answers one request (called on the connection's thread); nil when the reply was already
    /// sent (an `events` subscription acknowledges on its own queue).
    package func handle(_ request: ControlRequest, connection: LineConnection) -> ControlReply? {
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
                events.subscribe(EventSubscriber(connection: connection, acknowledgement: .success(id, ControlResult())))
                return nil
            case .start:
                let args = request.args ?? StartArguments()
                let uploadWarnings = try checkUploadTargets(of: args)
                var r = try locked { () throws(ControlError) in try lifecycle.start(args) }
                if !uploadWarnings.isEmpty { r.warnings = (r.warnings ?? []) + uploadWarnings }
                return .success(id, r)
            case .stop:
                if let output = request.options?.outputId {
                    return .success(id, try locked { () throws(ControlError) in try lifecycle.stopOutput(output, options: request.options) })
                }
                return .success(id, try locked { () throws(ControlError) in try lifecycle.stop(deliveringTo: request.options) })
            case .discard:
                if let output = request.options?.outputId {
                    return .success(id, try locked { () throws(ControlError) in try lifecycle.discardOutput(output) })
                }
                return .success(id, try locked { () throws(ControlError) in try lifecycle.finish(discard: true) })
            case .pause, .resume:
                let pause = request.cmd == .pause
                if let output = request.options?.outputId {
                    return .success(id, try locked { () throws(ControlError) in try lifecycle.pauseOutput(output, pause: pause) })
                }
                return .success(id, try locked { () throws(ControlError) in pause ? try lifecycle.pause() : try lifecycle.resume() })
            case .mark:
                return .success(id, try mark(request.options ?? CommandOptions()))
            case .saveReplay:
                return .success(id, try saveReplay(request.options ?? CommandOptions()))
            case .split:
                return .success(id, try split())
            case .screenshot:
                return .success(id, try screenshot(request.options ?? CommandOptions()))
            case .audioSwitch:
                return .success(id, try switchAudio(request.options ?? CommandOptions()))
            case .cameraSwitch:
                return .success(id, try switchCamera(request.options ?? CommandOptions()))
            case .upload, .uploads, .uploadPause, .uploadResume, .uploadCancel:
                return .success(id, try handleUpload(request.cmd, request.options ?? CommandOptions()))
            case .shutdown:
                lifecycle.stopForShutdown()
                var r = ControlResult()
                r.state = "stopping"
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { [onShutdown] in onShutdown() }
                return .success(id, r)
            }
        } catch {
            return .failure(id, error)
        }
    }

    /// Runs `body` as the only command changing the recording (``SessionLifecycle/locked(_:)``).
    func locked<T>(_ body: () throws(ControlError) -> T) throws(ControlError) -> T { try lifecycle.locked(body) }

    /// The recording in progress; `not_recording` without one.
    func current() throws(ControlError) -> ActiveRecording { try lifecycle.current() }

    /// Queues `event` to every subscriber (never blocks).
    func publish(_ event: ServiceEvent) { events.publish(event) }

    // MARK: Status

    /// The status report.
    package func status() -> ServiceStatus {
        let (active, last) = lifecycle.snapshot
        var recording: ServiceStatus.Recording?
        if let active {
            let s = active.session.status
            recording = ServiceStatus.Recording(id: active.id, state: s.state.rawValue, pauseReason: s.pauseReason,
                                                destination: s.handlers.lazy.compactMap { $0.serviceInfo["path"] }.first, recorder: s)
        }
        return ServiceStatus(service: .init(pid: getpid(), version: ControlProtocol.version, socket: paths.socketPath),
                             recording: recording, last: last, recovered: recovery.recovered,
                             availability: availabilityMonitor.current)
    }

    // MARK: Recovery and shutdown

    /// Hands every session directory an earlier service left to the extensions that wrote it
    /// (their recovery hooks); reports each result in status and as an event.
    package func recoverInterruptedSessions() { recovery.recoverInterruptedSessions() }

    /// Stops a recording in progress (on SIGTERM), finalizing its files.
    package func stopForShutdown() { lifecycle.stopForShutdown() }

    /// Now, as the journal and events write times (ISO 8601).
    static func now() -> String { ISO8601DateFormatter().string(from: Date()) }
}
