import CShims
import Foundation
import Glibc
import Synchronization

/// Listens on the control socket and serves each client on a thread of its own.
///
/// The socket lives in a directory private to the user (0700) and is itself 0600; every peer's
/// uid is checked with `SO_PEERCRED` before a byte is read. Malformed, oversized and unknown
/// requests get an error reply and the connection (and the service) stay up.
package final class ControlServer: Sendable {
    /// Answers one request. `connection` lets a handler keep streaming (the `events` command).
    package typealias RequestHandler = @Sendable (ControlRequest, LineConnection) -> ControlReply?

    private let paths: ServicePaths
    private let handle: RequestHandler
    private let listenFD = Atomic<Int32>(-1)

    /// Creates a server for `paths`; `handle` answers requests (on the connection's thread).
    package init(paths: ServicePaths, handle: @escaping RequestHandler) {
        self.paths = paths
        self.handle = handle
    }

    /// Binds the socket. Fails when another service already answers on it.
    package func bind() throws(ControlError) {
        try paths.preparePrivateRuntimeDirectory()
        let path = paths.socketPath
        // A live service answers a connect; a stale socket file from a killed one does not.
        let probe = cshim_unix_connect(path)
        if probe >= 0 {
            Glibc.close(probe)
            throw ControlError(.busy, "a recordd is already running on \(path)")
        }
        unlink(path)
        let fd = cshim_unix_listen(path, 16, 0o600)
        guard fd >= 0 else {
            throw ControlError(.unavailable, "cannot listen on \(path): \(String(cString: strerror(errno)))")
        }
        listenFD.store(fd, ordering: .releasing)
    }

    /// Accepts clients until ``stop()``; blocks the calling thread.
    package func serve() {
        while true {
            let lfd = listenFD.load(ordering: .acquiring)
            if lfd < 0 { return }
            let fd = cshim_accept_cloexec(lfd)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let connection = LineConnection(fd: fd, redactsSecrets: true)
            let handle = self.handle
            Thread.detachNewThread { Self.serveClient(connection, handle: handle) }
        }
    }

    /// Stops accepting and removes the socket file.
    package func stop() {
        let fd = listenFD.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 {
            shutdown(fd, Int32(SHUT_RDWR))
            Glibc.close(fd)
            unlink(paths.socketPath)
        }
    }

    private static func serveClient(_ connection: LineConnection, handle: RequestHandler) {
        defer { connection.close() }
        guard PeerCredentials.isAllowed(peerUID: PeerCredentials.peerUID(of: connection.fd), serviceUID: getuid()) else {
            connection.send(ControlReply.failure(nil, ControlError(.permissionDenied, "this service belongs to another user")))
            connection.lingerAfterRefusal()  // so the refusal is read, not lost to a reset
            return
        }
        while true {
            switch connection.readLine() {
            case .closed:
                return
            case .tooLarge:
                connection.send(ControlReply.failure(nil, ControlError(.tooLarge, "request longer than \(ControlProtocol.maxLineBytes) bytes")))
            case .line(let bytes):
                switch ControlRequestParser.parse(bytes) {
                case .blank: continue
                case .rejected(let reply): connection.send(reply)
                case .request(let request): if let reply = handle(request, connection) { connection.send(reply) }
                }
            }
        }
    }
}
