import Dispatch
import Foundation
import Glibc
import RecordKitService

/// The service process: binds the socket, recovers interrupted recordings, serves requests,
/// and on SIGTERM/SIGINT finalizes a recording in progress before exiting.
///
/// Deliberately not main-actor code: the signal handlers and request handlers run on their own
/// queues and threads.
enum RecordDaemon {
    /// Runs the service; never returns.
    static func run(detach: Bool) -> Never {
        if detach { _ = setsid() }  // leave the caller's terminal session
        signal(SIGPIPE, SIG_IGN)
        let paths = ServicePaths()
        let holder = ServerHolder()
        let service = RecordingService(paths: paths) {
            log("shutdown requested")
            holder.server?.stop()
            exit(0)
        }
        let server = ControlServer(paths: paths) { request, connection in service.handle(request, connection: connection) }
        holder.server = server
        do throws(ControlError) {
            try server.bind()
        } catch {
            log(error.message)
            exit(error.code == .busy ? 0 : 69)
        }
        log("listening on \(paths.socketPath)")
        service.recoverInterruptedSessions()
        for r in service.status().recovered { log("recovered interrupted recording \(r.id) into \(r.path)") }

        let signalQueue = DispatchQueue(label: "recordd.signals")
        let once = DispatchSemaphore(value: 1)
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: signalQueue)
            source.setEventHandler {
                guard once.wait(timeout: .now()) == .success else { return }
                log("signal \(sig): finishing")
                service.stopForShutdown()
                server.stop()
                exit(0)
            }
            source.resume()
            sources.append(source)
        }
        withExtendedLifetime(sources) { server.serve() }
        exit(0)
    }

    /// Writes one timestamped line to the service log (standard error).
    static func log(_ message: String) {
        let line = "\(ISO8601DateFormatter().string(from: Date())) recordd[\(getpid())]: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}

/// Lets the shutdown callback reach the server created after it.
private final class ServerHolder: @unchecked Sendable {
    var server: ControlServer?
}
