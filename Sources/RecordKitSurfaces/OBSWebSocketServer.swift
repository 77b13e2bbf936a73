import Dispatch
import Foundation
import RecordKitControl
import RecordKitOBSWebSocket
import RecordKitService
import RecordKitWeb
import Synchronization

/// The obs-websocket 5 server of `recordd`: ``OBSSession``s over the loopback web stack
/// (``WebServer``: 127.0.0.1 only, bounded frames, Host and Origin checks), each request a request
/// of the service's one API through a ``LocalControlClient``, each service event translated and
/// sent to the sessions that subscribed to it.
///
/// Threading: a session's messages are handled in order on a serial queue of its own (a request
/// may block while the service starts or stops a recording), never on NIO's event loops or
/// Swift's cooperative pool; events are queued without waiting (a client that stops reading is
/// closed by the web stack's bound, never slows the service).
package final class OBSWebSocketServer: Sendable {
    private struct Client: Sendable {
        let session: OBSSession
        let connection: WebSocketConnection
    }
    private let clients = Mutex<[ObjectIdentifier: Client]>([:])
    private let control: LocalControlClient
    private let requests: OBSRecordKitRequests
    private let translator: OBSEventTranslator
    private let password: String
    private let server: Mutex<WebServer?> = Mutex(nil)
    private let log: @Sendable (String) -> Void

    /// A server (not listening yet) driving `control`'s service with `password`.
    package init(control: LocalControlClient, password: String, settings: OBSRecordingSettings, log: @escaping @Sendable (String) -> Void) {
        self.control = control
        self.password = password
        self.log = log
        let port: OBSRecordKitRequests.Port = { control.request($0) }
        requests = OBSRecordKitRequests(port: port, settings: settings)
        translator = OBSEventTranslator { id in
            // The service lists a recording once its start returned, a moment after its first
            // events: wait for it (at most 2 s, on the event feed's own thread).
            for _ in 0..<40 {
                if let r = control.request(ControlRequest(cmd: .status)).result?.status?.recording, r.id == id {
                    return Set(OBSOutputKind.allCases.filter { kind in r.recorder.handlers.contains { kind.matches(handler: $0.name) } })
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return []
        }
    }

    /// Listens on 127.0.0.1:`port` and follows the service's events; returns the port.
    package func start(port: UInt16) throws -> UInt16 {
        let endpoint = WebSocketEndpoint(subprotocols: OBSEncoding.allCases.map(\.rawValue), requiresSubprotocol: false) { [self] connection in
            accept(connection)
        }
        let web = WebServer(configuration: WebServerConfiguration(port: port), routes: [.webSocket("/", endpoint)])
        let bound = try web.start()
        server.withLock { $0 = web }
        control.subscribe { [self] event in
            if event.kind == "replay-saved", let path = event.path { requests.noteReplaySaved(path) }
            for obsEvent in translator.translate(event) { broadcast(obsEvent) }
        }
        return bound
    }

    /// Says `ExitStarted` to every client, closes them (1001) and stops listening.
    package func stop() {
        broadcast(OBSEventTranslator.exitStarted)
        for client in clients.withLock({ c in defer { c.removeAll() }; return Array(c.values) }) { client.connection.close(code: 1001, reason: "server stopping") }
        control.close()
        server.withLock { s in s?.stop(); s = nil }
    }

    /// Clients connected now.
    package var clientCount: Int { clients.withLock { $0.count } }

    private func broadcast(_ event: OBSEvent) {
        for client in clients.withLock({ Array($0.values) }) {
            if let frame = client.session.frame(for: event) { client.connection.enqueue(Self.message(frame)) }
        }
    }

    private func accept(_ connection: WebSocketConnection) {
        let session = OBSSession(encoding: OBSEncoding(subprotocol: connection.subprotocol), password: password, handler: requests)
        let key = ObjectIdentifier(connection)
        clients.withLock { $0[key] = Client(session: session, connection: connection) }
        connection.enqueue(Self.message(session.hello()))
        let queue = DispatchQueue(label: "recordkit.obs-websocket.session")
        let log = self.log
        Task { [self] in
            defer { clients.withLock { _ = $0.removeValue(forKey: key) } }
            for await message in connection.messages {
                let frame: OBSFrame
                switch message {
                case .text(let t): frame = .text(t)
                case .binary(let b): frame = .binary(b)
                }
                let reaction = await withCheckedContinuation { (c: CheckedContinuation<OBSSession.Reaction, Never>) in
                    queue.async { c.resume(returning: session.receive(frame)) }
                }
                switch reaction {
                case .send(let frames):
                    for f in frames { connection.enqueue(Self.message(f)) }
                case .close(let close):
                    if close.code == .authenticationFailed { log("obs-websocket: a client failed to authenticate; closed it (4009)") }
                    connection.close(code: close.code.rawValue, reason: close.reason)
                    return
                }
            }
        }
    }

    private static func message(_ frame: OBSFrame) -> WebSocketMessage {
        switch frame {
        case .text(let t): return .text(t)
        case .binary(let b): return .binary(b)
        }
    }
}
