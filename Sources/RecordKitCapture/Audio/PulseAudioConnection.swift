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
package final class PulseAudioConnection: @unchecked Sendable {
    private let loop: PulseMainloop
    private let monitor: PulseContextMonitor
    private let timeoutUs: UInt64
    /// The `pa_context *`; nil once closed. Guarded by the loop lock.
    private var context: OpaquePointer?
    /// Every stream opened and not yet known to be gone, so that ``close()`` can stop them.
    private let readers = Mutex<[WeakReader]>([])
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

    /// Opens a record stream on `source` and starts delivering its audio.
    ///
    /// The stream records 32-bit float, 48 kHz, stereo (the server converts from whatever the
    /// source has) in fragments of about 10 ms, with latency adjustment and interpolated,
    /// automatically updated timing.
    ///
    /// - Parameters:
    ///   - source: which source to record; defaults are resolved now, against the server's
    ///     current defaults.
    ///   - name: the stream's name on the server (`pactl list source-outputs`).
    ///   - deliver: called on the connection's PulseAudio thread for every chunk, one call at a
    ///     time, with interleaved L,R samples valid only during the call, the number of frames,
    ///     and the CLOCK_MONOTONIC time in nanoseconds at which the chunk's first frame was
    ///     captured (now minus the stream latency that Pulse reports, i.e. the age of the oldest
    ///     unread data). For a sink monitor that latency can be negative (the sink has not played
    ///     the audio yet), so the time can lie a few ms after now. Times strictly increase from
    ///     chunk to chunk. Chunks the server dropped (holes) are skipped, not delivered; the
    ///     next chunk's time shows the gap.
    ///
    /// Blocks for at most about twice the connection's timeout. Must not be called from inside a
    /// `deliver` closure (the PulseAudio thread cannot wait for itself).
    /// - Returns: the running stream.
    /// - Throws: ``CaptureError`` `.audioSourceNotFound` naming the source when it does not exist
    ///   (the message lists the sources that do); `.noAudioServer` when the connection is gone;
    ///   `.audioError` when the server refuses the stream or does not answer in time.
    package func openStream(
        _ source: AudioSourceSelector, name: String,
        deliver: @escaping @Sendable (_ samples: UnsafeBufferPointer<Float>, _ frameCount: Int, _ captureTimeNs: UInt64) -> Void
    ) throws(CaptureError) -> AudioCaptureStream {
        precondition(!loop.isLoopThread, "openStream must not be called from a PulseAudio callback")
        if case .application(let app) = source { return try openApplicationStream(app, name: name, deliver: deliver) }  // one app's audio
        let stream = try loop.withLock { () throws(CaptureError) -> AudioCaptureStream in
            guard let context, monitor.phase == .ready else { throw notConnected("open stream '\(name)'") }
            pa_context_ref(context)
            defer { pa_context_unref(context) }
            let query = PulseQuery(loop: loop, context: context, monitor: monitor, timeoutUs: timeoutUs)
            let sourceName = try resolve(source, query)
            guard try query.sourceExists(sourceName) else {
                let known = (try? query.sourceNames())?.joined(separator: ", ") ?? "unknown"
                throw CaptureError(.audioSourceNotFound, "PulseAudio source '\(sourceName)' does not exist on \(monitor.serverDescription) "
                    + "(available sources: \(known))")
            }
            let reader = try connectRecord(context, sourceName: sourceName, name: name, deliver: deliver)
            return AudioCaptureStream(sourceName: sourceName, reader: reader)
        }
        return stream
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

    // MARK: - Private

    /// The concrete source name for `source`. Loop lock held.
    private func resolve(_ source: AudioSourceSelector, _ query: PulseQuery) throws(CaptureError) -> String {
        switch source {
        case .source(let name):
            return name
        case .sinkMonitor(let sink):
            return sink + ".monitor"
        case .defaultSinkMonitor:
            guard let sink = try query.serverDefaults().sink, !sink.isEmpty else {
                throw CaptureError(.audioSourceNotFound, "PulseAudio server \(monitor.serverDescription) has no default sink, "
                    + "so there is no default sink monitor to record app audio from")
            }
            return sink + ".monitor"
        case .application(let app):
            throw CaptureError(.audioError, "\(app) has no single source; it is recorded through its sink inputs")
        case .defaultSource:
            guard let name = try query.serverDefaults().source, !name.isEmpty else {
                throw CaptureError(.audioSourceNotFound, "PulseAudio server \(monitor.serverDescription) has no default source "
                    + "(no microphone?)")
            }
            return name
        }
    }

    /// Creates and connects the record stream and waits until it is READY. Loop lock held.
    private func connectRecord(_ context: OpaquePointer, sourceName: String, name: String,
                               deliver: @escaping AudioStreamReader.Deliver) throws(CaptureError) -> AudioStreamReader {
        var spec = AudioStreamReader.sampleSpec
        var channels = pa_channel_map()
        pa_channel_map_init_stereo(&channels)
        guard let stream = pa_stream_new(context, name, &spec, &channels) else {
            throw CaptureError(.audioError, "pa_stream_new for '\(sourceName)' failed: "
                + String(cString: pa_strerror(pa_context_errno(context))))
        }
        let reader = AudioStreamReader(loop: loop, stream: stream, deliver: deliver)
        let fragment = UInt32(pa_usec_to_bytes(10_000, &spec))  // ≈ 10 ms
        var attr = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max,
                                  minreq: UInt32.max, fragsize: fragment)
        let flags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue
            | PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue)
        guard pa_stream_connect_record(stream, sourceName, &attr, flags) == 0 else {
            let why = String(cString: pa_strerror(pa_context_errno(context)))
            reader.stop()
            throw CaptureError(.audioError, "cannot record from PulseAudio source '\(sourceName)': \(why)")
        }
        let settled = loop.wait(context: context, timeoutUs: timeoutUs) {
            let state = pa_stream_get_state(stream)
            return state != PA_STREAM_CREATING && state != PA_STREAM_UNCONNECTED || monitor.phase != .ready
        }
        let state = pa_stream_get_state(stream)
        if state == PA_STREAM_READY, monitor.phase == .ready {
            readers.withLock { list in
                list.removeAll { $0.reader?.isStopped ?? true }
                list.append(WeakReader(reader: reader))
            }
            return reader
        }
        let code = pa_context_errno(context)
        reader.stop()
        if monitor.phase != .ready { throw notConnected("open stream '\(name)' on '\(sourceName)'") }
        if !settled {
            throw CaptureError(.audioError, "PulseAudio source '\(sourceName)' did not start within "
                + "\(Double(timeoutUs) / 1e6) s")
        }
        if code == Int32(PA_ERR_NOENTITY.rawValue) {
            throw CaptureError(.audioSourceNotFound, "PulseAudio source '\(sourceName)' does not exist on "
                + "\(monitor.serverDescription)")
        }
        throw CaptureError(.audioError, "PulseAudio refused to record from '\(sourceName)': "
            + String(cString: pa_strerror(code)))
    }

    private func notConnected(_ what: String) -> CaptureError {
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
    private struct WeakReader {
        weak var reader: AudioStreamReader?
    }
}
