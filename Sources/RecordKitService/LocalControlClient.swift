import Foundation
import Glibc
import Synchronization

/// An in-process client of the service's one request API, for the control surfaces that live in
/// `recordd` (obs-websocket, hotkeys): the same ``ControlRequest``s and replies as `recordctl`'s,
/// and an `events` subscription through a socket pair, so a surface gets exactly what a
/// `recordctl events` subscriber gets (bounded queue, `too_slow` when it falls behind) and can
/// never hold the service up.
package final class LocalControlClient: Sendable {
    private let service: RecordingService
    private let subscriptions = Mutex<[LineConnection]>([])

    /// A client of `service`.
    package init(service: RecordingService) { self.service = service }

    /// Answers `request` (blocking while a command such as `start` or `stop` runs). `events` is
    /// refused here: use ``subscribe(onEvent:)``.
    package func request(_ request: ControlRequest) -> ControlReply {
        guard request.cmd != .events else {
            return .failure(request.id, ControlError(.badRequest, "subscribe to events with subscribe(onEvent:)"))
        }
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            return .failure(request.id, ControlError(.failed, "socketpair: \(String(cString: strerror(errno)))"))
        }
        // Requests other than `events` never touch the connection; it exists because the API takes one.
        let connection = LineConnection(fd: fds[0], redactsSecrets: true)
        defer { connection.close(); Glibc.close(fds[1]) }
        return service.handle(request, connection: connection) ?? .failure(request.id, ControlError(.failed, "no reply"))
    }

    /// Calls `onEvent` (on a thread of the subscription's own) for each service event until
    /// ``close()``; the service drops a subscriber that falls 256 events behind.
    package func subscribe(onEvent: @escaping @Sendable (ServiceEvent) -> Void) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else { return }
        let serviceSide = LineConnection(fd: fds[0], redactsSecrets: true)
        let mySide = LineConnection(fd: fds[1])
        subscriptions.withLock { $0.append(mySide) }
        _ = service.handle(ControlRequest(cmd: .events, id: "local"), connection: serviceSide)
        let thread = Thread {
            defer { serviceSide.close(); mySide.close() }
            let decoder = JSONDecoder()
            while case .line(let bytes) = mySide.readLine() {
                if let reply = try? decoder.decode(ControlReply.self, from: Data(bytes)), let event = reply.event { onEvent(event) }
            }
        }
        thread.name = "recordkit.local-events"
        thread.start()
    }

    /// Ends every subscription.
    package func close() {
        for c in subscriptions.withLock({ s in defer { s.removeAll() }; return s }) { c.abort() }
    }
}
