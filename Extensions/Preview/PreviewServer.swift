import FlyingFox
import FlyingSocks
import Foundation
import RecordKit
import Synchronization

/// The preview's web server: FlyingFox on 127.0.0.1 only, a random free port unless one is
/// given, and a ``TokenGate`` in front of every route, the WebSocket upgrade included.
///
/// It runs on Swift's cooperative pool (it is network I/O and control, not per-frame media
/// work); the recording reaches it only through ``LiveFeed``, which never waits for it.
/// FlyingFox's request logging is off: a request line carries the token.
final class PreviewServer: Sendable {
    private let server: HTTPServer
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// Creates a server for `site` on `port` (0: any free port); nothing listens before ``start()``.
    init(site: PreviewSite, port: UInt16) throws {
        let address = try sockaddr_in.inet(ip4: "127.0.0.1", port: port)
        server = HTTPServer(address: address, timeout: 30, logger: SilentLogger(), handler: TokenGate(site: site))
    }

    /// Starts listening and returns the port, or throws when it cannot within `timeout` seconds
    /// (the port is taken, …). Blocks the calling thread (a handler's queue), not the pool.
    func start(timeout: Double = 5) throws(BroadcastError) -> UInt16 {
        let server = self.server
        let failure = Box<String>()
        let running = Task {
            do { try await server.run() } catch { failure.set("\(error)") }
        }
        task.withLock { $0 = running }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let message = failure.value {
                throw BroadcastError(.invalidSetup, "the preview server could not listen on 127.0.0.1: \(message)")
            }
            let port = Box<UInt16>()
            let done = DispatchSemaphore(value: 0)
            Task {
                if case .ip4(_, let value)? = await server.listeningAddress { port.set(value) }
                done.signal()
            }
            done.wait()
            if let value = port.value { return value }
            usleep(20_000)
        }
        throw BroadcastError(.invalidSetup, "the preview server did not start listening within \(Int(timeout)) s")
    }

    /// Stops listening and closes every connection; returns at once.
    func stop() {
        let server = self.server
        Task { await server.stop(timeout: 1) }
    }
}

/// A value handed from a task to a waiting thread.
private final class Box<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)
    func set(_ value: Value) { storage.withLock { $0 = value } }
    var value: Value? { storage.withLock { $0 } }
}

/// Drops FlyingFox's log lines: they would carry request targets, and so the token.
private struct SilentLogger: Logging {
    func logDebug(_ debug: @autoclosure () -> String) {}
    func logInfo(_ info: @autoclosure () -> String) {}
    func logWarning(_ warning: @autoclosure () -> String) {}
    func logError(_ error: @autoclosure () -> String) {}
    func logCritical(_ critical: @autoclosure () -> String) {}
}
