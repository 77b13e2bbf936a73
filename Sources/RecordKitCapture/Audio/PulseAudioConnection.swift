import CPulse
import Dispatch
import Foundation
import Synchronization

/// A connection to a PulseAudio (or pipewire-pulse) server through libpulse's asynchronous API:
/// one `pa_threaded_mainloop` thread and one `pa_context`, shared by every stream opened on it.
///
/// Threading: every method may be called from any thread. Stream callbacks (`deliver`) run on
/// the connection's PulseAudio thread, one at a time, and must return quickly: they hold up every
/// stream of the connection. ``onDisconnect`` runs on a private serial queue, never on that thread.
///
/// Lifetime: ``close()`` (or dropping the last reference) stops every stream and disconnects.
/// Streams keep working only while the connection is open.
///
/// Opening a record stream is in `PulseAudioConnection+RecordStream.swift`; one application's
/// audio and the server's inventory in their own files.
package final class PulseAudioConnection: @unchecked Sendable {
    let loop: PulseMainloop
    let monitor: PulseContextMonitor
    let timeoutUs: UInt64
    /// The `pa_context *`; nil once closed. Guarded by the loop lock.
    var context: OpaquePointer?
    /// Every stream opened and not yet known to be gone, so that ``close()`` can stop them.
    let readers = Mutex<[WeakReader]>([])
    /// Pings the server while connected (a server that stops answering is reported too).
    private let liveness = Mutex<PulseLivenessWatch?>(nil)

    /// Connects to a PulseAudio server and waits until the connection is ready.
    ///
    /// - Parameters:
    ///   - server: a libpulse server string (`"unix:/run/user/1000/pulse/native"`,
    ///     `"tcp:host:4713"`); nil uses libpulse's default (`$PULSE_SERVER`, client.conf, the
    ///     user's runtime directory). The server is never autospawned (`PA_CONTEXT_NOAUTOSPAWN`).
    ///   - clientName: the application name the server shows (`pactl list clients`).
    ///   - timeoutSeconds: how long to wait for the server, here and in ``openStream(_:name:deliver:)``.
    /// - Throws: ``CaptureError`` `.noAudioServer` naming the server and what failed (no socket,
    ///   refused, timed out), or `.audioError` if libpulse itself cannot start.
    package init(server: String? = nil, clientName: String = "RecordKit", timeoutSeconds: Double = 3) throws(CaptureError) {
        let description = Self.describe(server: server)
        let timeoutUs = UInt64(max(timeoutSeconds, 0.001) * 1_000_000)
        let loop = try PulseMainloop()
        let monitor = PulseContextMonitor(loop: loop, serverDescription: description)
        let context: OpaquePointer = try loop.withLock { () throws(CaptureError) -> OpaquePointer in
            guard let context = pa_context_new(loop.api, clientName) else {
                throw CaptureError(.audioError, "pa_context_new failed (out of memory?)")
            }
            monitor.attach(to: context)
            var failure: String?
            if pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
                failure = String(cString: pa_strerror(pa_context_errno(context)))
            } else if !loop.wait(context: context, timeoutUs: timeoutUs, until: { monitor.phase != .connecting }) {
                failure = "no answer within \(timeoutSeconds) s"
            } else if case .failed(let why) = monitor.phase {
                failure = why
            }
            if let failure {
                monitor.detach(from: context)
                pa_context_disconnect(context)
                pa_context_unref(context)
                throw CaptureError(.noAudioServer, "cannot connect to the PulseAudio server \(description): \(failure). "
                    + "Is PulseAudio (or pipewire-pulse) running? Point PULSE_SERVER at its socket.")
            }
            return context
        }
        self.loop = loop
        self.monitor = monitor
        self.timeoutUs = timeoutUs
        self.context = context
        startLivenessWatch()
    }

    /// Reports (through ``onDisconnect``) a server that stops answering: a stopped or hung server
    /// keeps its socket open, so libpulse alone would never say so and audio would silently stop.
    private func startLivenessWatch() {
        let watch = PulseLivenessWatch(ping: { [weak self] in self?.ping() }, onSilent: { [monitor] why in
            guard monitor.phase == .ready, let handler = monitor.onDisconnect else { return }
            handler("the PulseAudio server \(monitor.serverDescription) \(why)")
        })
        liveness.withLock { $0 = watch }
    }

    /// One round trip to the server with a deadline: nil when it answered (or the connection is
    /// no longer up: libpulse reports that itself), else why not.
    private func ping() -> String? {
        guard monitor.phase == .ready else { return nil }
        return loop.withLock { () -> String? in
            guard let context, monitor.phase == .ready else { return nil }
            pa_context_ref(context)  // close() may drop its reference while the ping waits
            defer { pa_context_unref(context) }
            let timeout = UInt64(PulseLivenessWatch.pingTimeout * 1_000_000)
            do throws(CaptureError) {
                _ = try PulseQuery(loop: loop, context: context, monitor: monitor, timeoutUs: timeout).serverDefaults()
                return nil
            } catch {
                return monitor.phase == .ready ? "stopped answering (no reply within \(Int(PulseLivenessWatch.pingTimeout)) s)" : nil
            }
        }
    }

    /// Whether the server is connected: true from a successful `init` until the server goes away
    /// or ``close()`` is called.
    package var isConnected: Bool { monitor.phase == .ready }

    /// Called once, with a reason, if the server goes away (the context fails or terminates) while
    /// connected; not called for ``close()``. Set it before opening streams. It runs on a private
    /// serial queue, so it may call ``close()``.
    package var onDisconnect: (@Sendable (String) -> Void)? {
        get { monitor.onDisconnect }
        set { monitor.onDisconnect = newValue }
    }

    /// Stops every stream, disconnects from the server and ends the PulseAudio thread.
    /// Idempotent; callable from any thread, including from `deliver`. When it returns no
    /// `deliver` of this connection runs or will run again. From inside `deliver` the disconnect
    /// itself finishes on another thread just after that callback returns (libpulse cannot tear
    /// down its connection while a received memory block is in use). ``onDisconnect`` is not called.
    package func close() {
        guard monitor.markClosed() else { return }
        liveness.withLock { $0?.stop(); $0 = nil }
        let open = readers.withLock { list in
            defer { list.removeAll() }
            return list.compactMap(\.reader)
        }
        for reader in open { reader.stop() }
        let context = loop.withLock { () -> ContextHandle in
            defer { self.context = nil }
            loop.signal()  // wake an openStream waiting on another thread: it sees .closed
            return ContextHandle(pointer: self.context)
        }
        let teardown = { @Sendable [loop, monitor] in
            loop.withLock {
                if let pointer = context.pointer {
                    monitor.detach(from: pointer)
                    pa_context_disconnect(pointer)
                    pa_context_unref(pointer)
                }
            }
            loop.stop()
        }
        if loop.isLoopThread {
            DispatchQueue.global().async(execute: teardown)
        } else {
            teardown()
        }
    }

    deinit { close() }

    /// The error for `what` when the connection is not up (the server lost, or closed).
    func notConnected(_ what: String) -> CaptureError {
        switch monitor.phase {
        case .failed(let why):
            return CaptureError(.noAudioServer, "cannot \(what): lost the PulseAudio server \(monitor.serverDescription): \(why)")
        default:
            return CaptureError(.noAudioServer, "cannot \(what): the PulseAudio connection to \(monitor.serverDescription) is closed")
        }
    }

    /// How messages name the server.
    private static func describe(server: String?) -> String {
        if let server { return "'\(server)'" }
        if let env = ProcessInfo.processInfo.environment["PULSE_SERVER"], !env.isEmpty {
            return "'\(env)' (from $PULSE_SERVER)"
        }
        return "(libpulse default: client.conf or $XDG_RUNTIME_DIR/pulse/native)"
    }

    // What the application follower and the inventory (other files) need: one application's audio, its sources.
    var pulseLoop: PulseMainloop { loop }
    var pulseMonitor: PulseContextMonitor { monitor }
    var pulseTimeoutUs: UInt64 { timeoutUs }
    /// The `pa_context *`, nil once closed. Loop lock held.
    var pulseContext: OpaquePointer? { context }

    /// Carries the `pa_context *` to the thread that disconnects it.
    private struct ContextHandle: @unchecked Sendable {
        let pointer: OpaquePointer?
    }

    /// A registry entry that does not keep a stream alive.
    struct WeakReader {
        weak var reader: AudioStreamReader?
    }
}
