// recordd: the RecordKit recording service. Listens on a private Unix socket
// ($XDG_RUNTIME_DIR/recordkit/recordd.sock) and owns the user's recordings (docs/PROTOCOL.md).
import Dispatch
import Foundation
import Glibc
import RecordKitService

/// Writes one timestamped line to the service log (standard error).
func log(_ message: String) {
    let line = "\(ISO8601DateFormatter().string(from: Date())) recordd[\(getpid())]: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: recordd [--foreground]\n\nThe RecordKit recording service. recordctl starts it on demand; see docs/recordd.md.")
    exit(0)
}
if !arguments.contains("--foreground") { _ = setsid() }  // leave the caller's terminal session
signal(SIGPIPE, SIG_IGN)

let paths = ServicePaths()
let shutdownOnce = DispatchSemaphore(value: 1)
nonisolated(unsafe) var serverRef: ControlServer?
let service = RecordingService(paths: paths) {
    log("shutdown requested")
    serverRef?.stop()
    exit(0)
}
let server = ControlServer(paths: paths) { request, connection in service.handle(request, connection: connection) }
serverRef = server
do throws(ControlError) {
    try server.bind()
} catch {
    log(error.message)
    exit(error.code == "busy" ? 0 : 69)
}
log("listening on \(paths.socketPath)")
service.recoverInterruptedSessions()
for r in service.status().recovered { log("recovered interrupted recording \(r.id) into \(r.path)") }

// SIGTERM / SIGINT: finalize a recording in progress, then exit.
let signalQueue = DispatchQueue(label: "recordd.signals")
var signalSources: [DispatchSourceSignal] = []
for sig in [SIGTERM, SIGINT] {
    signal(sig, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: sig, queue: signalQueue)
    source.setEventHandler {
        guard shutdownOnce.wait(timeout: .now()) == .success else { return }
        log("signal \(sig): finishing")
        service.stopForShutdown()
        server.stop()
        exit(0)
    }
    source.resume()
    signalSources.append(source)
}
server.serve()
