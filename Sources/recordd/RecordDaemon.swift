import Dispatch
import Foundation
import Glibc
import RecordKitBuiltins
import RecordKitConfig
import RecordKitService
import RecordKitSurfaces

/// The service process: binds the socket, recovers interrupted recordings, serves requests,
/// and on SIGTERM/SIGINT finalizes a recording in progress before exiting.
///
/// Deliberately not main-actor code: the signal handlers and request handlers run on their own
/// queues and threads.
enum RecordDaemon {
    /// Runs the service; never returns. Only the main thread ends the process (``ShutdownCoordinator``).
    static func run(detach: Bool) -> Never {
        if detach { _ = setsid() }  // leave the caller's terminal session
        signal(SIGPIPE, SIG_IGN)
        let paths = ServicePaths()
        let holder = ServerHolder()
        let coordinator = ShutdownCoordinator()
        let service = RecordingService(paths: paths, builtins: BuiltinExtensions.all) {
            // The shutdown request already finalized the recording; stop serving.
            coordinator.request(reason: "shutdown requested", log: log) {
                holder.surfaces?.stop()
                holder.server?.stop()
            }
        }
        // Hotkeys and obs-websocket: clients of the service's request API, started once it serves.
        let surfaces = ControlSurfaces(service: service) { RecordDaemon.log($0) }
        holder.surfaces = surfaces
        let server = ControlServer(paths: paths) { request, connection in service.handle(request, connection: connection) }
        holder.server = server
        // Signals are events from the very start: a SIGTERM while starting up (before the
        // socket is bound, during recovery) is a clean shutdown too, never the default action.
        let signalQueue = DispatchQueue(label: "recordd.signals")
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: signalQueue)
            source.setEventHandler {
                coordinator.request(reason: "signal \(sig)", log: log) {
                    surfaces.stop()
                    service.stopUploads()
                    service.stopForShutdown()
                    server.stop()
                }
            }
            source.resume()
            sources.append(source)
        }
        do throws(ControlError) {
            try server.bind()
        } catch {
            log(error.message)
            coordinator.exitProcess(status: error.code == .busy ? 0 : 69, log: log)
        }
        if coordinator.isRequested { server.stop() }  // a signal came while binding
        log("listening on \(paths.socketPath)")
        service.startAvailabilityMonitor()
        service.recoverInterruptedSessions()
        for r in service.status().recovered { log("recovered interrupted recording \(r.id) into \(r.path)") }
        surfaces.start()
        // Uploads that belong to no recording of this service's life run the config's hooks.
        let hooks = (try? ConfigFile())?.hooks ?? HookSettings()
        service.startUploads(hooks: hooks.onSaved, hookTimeout: hooks.timeout, log: log)

        withExtendedLifetime(sources) { server.serve() }
        // The accept loop returns when a shutdown stopped the server, or when accept failed:
        // then finalize here (a no-op when a shutdown is already under way).
        coordinator.request(reason: "control socket closed", quietIfUnderway: true, log: log) {
            surfaces.stop()
            service.stopForShutdown()
            server.stop()
        }
        coordinator.exitProcess(status: 0, log: log)
    }

    /// Writes one timestamped line to the service log (standard error), stream keys masked.
    static func log(_ message: String) {
        let line = "\(ISO8601DateFormatter().string(from: Date())) recordd[\(getpid())]: \(SecretRedactor.redact(message))\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}

/// Lets the shutdown callback reach the server created after it.
private final class ServerHolder: @unchecked Sendable {
    var server: ControlServer?
    var surfaces: ControlSurfaces?
}
