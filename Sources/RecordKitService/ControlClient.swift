import CShims
import Foundation
import Glibc

/// A connection from `recordctl` to `recordd`.
public final class ControlClient {
    private let connection: LineConnection
    private var nextID = 0

    /// Connects to the service at `paths.socketPath`; throws when none answers.
    public init(paths: ServicePaths) throws(ControlError) {
        let fd = cshim_unix_connect(paths.socketPath)
        guard fd >= 0 else {
            throw ControlError(.unavailable, "no recordd answers on \(paths.socketPath): \(String(cString: strerror(errno)))")
        }
        connection = LineConnection(fd: fd)
    }

    deinit { connection.close() }

    /// Sends a request and waits for its reply.
    public func request(_ cmd: ControlCommand, args: StartArguments? = nil) throws(ControlError) -> ControlResult {
        nextID += 1
        let id = String(nextID)
        connection.send(ControlRequest(cmd: cmd, id: id, args: args))
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
    public func streamEvents(_ onEvent: (ServiceEvent) -> Bool) throws(ControlError) {
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
