import CShims
import Foundation
import Glibc

/// A connection from `recordctl` to `recordd`.
///
/// Nothing is sent before the service is known to be this user's: the runtime directory must
/// be safe (``ServicePaths/checkRuntimeDirectory()``), the socket path must not be a symbolic
/// link (``ServicePaths/checkSocketPath()``), and the process at the other end of the
/// socket must run as this user (`SO_PEERCRED`), so a socket planted by another local user
/// never receives a request (and a stream key in it).
package final class ControlClient {
    private let connection: LineConnection
    private var nextID = 0

    /// Connects to the service at `paths.socketPath`; throws `unavailable` when none answers
    /// and `permission_denied` when the directory or the peer is not this user's.
    package init(paths: ServicePaths) throws(ControlError) {
        try paths.checkRuntimeDirectory()
        try paths.checkSocketPath()
        let fd = cshim_unix_connect(paths.socketPath)
        guard fd >= 0 else {
            throw ControlError(.unavailable, "no recordd answers on \(paths.socketPath): \(String(cString: strerror(errno)))")
        }
        let peer = PeerCredentials.peerUID(of: fd)
        guard PeerCredentials.isAllowed(peerUID: peer, serviceUID: getuid()) else {
            Glibc.close(fd)
            throw ControlError(.permissionDenied, "the process listening on \(paths.socketPath) runs as "
                               + (peer.map { "uid \($0)" } ?? "an unknown user") + ", not as you (uid \(getuid())); nothing was sent to it")
        }
        connection = LineConnection(fd: fd)
    }

    deinit { connection.close() }

    /// Sends a request and waits for its reply.
    package func request(_ cmd: ControlCommand, args: StartArguments? = nil, options: CommandOptions? = nil) throws(ControlError) -> ControlResult {
        nextID += 1
        let id = String(nextID)
        connection.send(ControlRequest(cmd: cmd, id: id, args: args, options: options))
        while true {
            let reply = try readReply()
            if reply.event != nil { continue }
            if reply.ok, let result = reply.result { return result }
            if reply.ok { return ControlResult() }
            throw reply.error ?? ControlError(.failed, "the service replied without a result")
        }
    }

    /// Subscribes to events and calls `onEvent` for each until the connection closes or
    /// `onEvent` returns false.
    package func streamEvents(_ onEvent: (ServiceEvent) -> Bool) throws(ControlError) {
        connection.send(ControlRequest(cmd: .events, id: "events"))
        while true {
            let reply = try readReply()
            if let event = reply.event {
                if !onEvent(event) { return }
            } else if !reply.ok {
                throw reply.error ?? ControlError(.failed, "events refused")
            }
        }
    }

    private func readReply() throws(ControlError) -> ControlReply {
        switch connection.readLine() {
        case .closed:
            throw ControlError(.unavailable, "the service closed the connection")
        case .tooLarge:
            throw ControlError(.failed, "the service sent an oversized reply")
        case .line(let bytes):
            guard let reply = try? JSONDecoder().decode(ControlReply.self, from: Data(bytes)) else {
                throw ControlError(.failed, "the service sent a reply that is not JSON")
            }
            return reply
        }
    }
}
