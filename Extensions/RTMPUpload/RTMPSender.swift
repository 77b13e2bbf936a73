import Dispatch
import Foundation
import RecordKit
import RecordKitMedia
import RecordKitSupport

/// Owns the connection to one streaming destination (``StreamDestination``: FLV over RTMP or
/// RTMPS, MPEG-TS over SRT), on a thread of its own (not Swift concurrency): connects, writes,
/// reconnects, and reports.
///
/// Why this file is longer than 300 lines: it is one state machine (connecting, live,
/// reconnecting, gave up) over state shared between the handler's calls and the sender thread
/// under one condition variable; its parts that stand alone are already apart (``PacketQueue``,
/// ``FLVTimestamps``, ``RTMPReconnectPolicy``, ``RTMPFailure``, ``H264FillerStripper``), and
/// splitting the rest would spread one lock's invariants over several files.
///
/// The handler's calls only append to a ``PacketQueue`` (the output's one queue and drop policy)
/// under a lock and return; everything that
/// can block on the network happens here, each blocking call bounded by an ``IOInterrupt``
/// deadline. The thread:
///
/// 1. connects at once (``start()``), without waiting for samples, so a wrong URL or key is
///    known within the first second: TCP, RTMP handshake, `connect`, `publish`;
/// 2. once a video key frame waits (the stream formats are known from the start),
///    writes the FLV header and sends packets as they come (`live`), without H.264 filler
///    (``H264FillerStripper``);
/// 3. when a write fails or stalls: closes, waits (``RTMPReconnectPolicy``), reconnects, and
///    goes on from the next key frame with timestamps that keep going (``FLVTimestamps``);
///    meanwhile the queue holds at most ``RTMPOutputOptions/bufferSeconds`` of media;
/// 4. ends the handler (``BroadcastContext/finishBroadcast(with:)``) when the first connection
///    fails, or when reconnecting failed ``RTMPReconnectPolicy/maxAttempts`` times.
///
/// Status goes out through ``BroadcastContext/publish(serviceInfo:)``: `url` (masked), `state`,
/// `bytesSent`, `bitrateKbps`, `dropped`, and `lastError` (what broke the connection last, once
/// something did); on every change of state and otherwise at most once a second.
final class RTMPSender: @unchecked Sendable {
    typealias Phase = RTMPSenderPhase

    private enum StopRequest: Int, Comparable {
        case none, drain, now
        static func < (a: StopRequest, b: StopRequest) -> Bool { a.rawValue < b.rawValue }
    }

    private enum SessionEnd {
        /// Stopped: sent everything (drain) or as asked (now).
        case stopped
        /// The connection failed.
        case lost(RTMPFailure)
    }

    private let endpoint: any StreamDestination
    private let options: RTMPOutputOptions
    private let context: any BroadcastContext
    /// The session's streams, video first, with their formats (known at start).
    private let streams: [(type: SampleBufferType, format: EncodedFormat)]
    private let interrupt = IOInterrupt()
    private let exited = DispatchSemaphore(value: 0)

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var queue: PacketQueue
    private var stopRequest = StopRequest.none
    private var accepting = true
    private var started = false

    // The sender thread's own.
    private var phase = Phase.connecting
    private var lastError: String?
    /// Connections made again after one was lost (status `reconnections`, the metrics' counter).
    private var reconnections = 0
    private var connection: NetworkOutput?
    private var bytesOfClosedConnections: Int64 = 0
    private var timestamps = FLVTimestamps()
    private var lastTick = 0.0
    private var bytesAtLastTick: Int64 = 0
    private var bitrateKbps = 0

    /// A sender for `endpoint` of `streams` (video first, then the mixed audio track if any).
    init(endpoint: any StreamDestination, options: RTMPOutputOptions, context: any BroadcastContext,
         streams: [(type: SampleBufferType, format: EncodedFormat)]) {
        self.endpoint = endpoint
        self.options = options
        self.context = context
        self.streams = streams
        self.queue = PacketQueue(limitSeconds: options.bufferSeconds)
        for secret in endpoint.secrets { FFmpegLog.addSecret(secret) }
    }

    /// Publishes `connecting` and starts the thread, which connects at once.
    func start() {
        condition.lock()
        started = true
        condition.unlock()
        publishStatus()
        let thread = Thread { [self] in run() }
        thread.name = "recordkit.rtmp"
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    /// Queues an encoded video or audio packet; never blocks on the network.
    func enqueue(_ sample: SampleBuffer) {
        condition.lock()
        defer { condition.unlock() }
        guard accepting else { return }
        queue.push(sample)
        condition.signal()
    }

    /// Ends the broadcast: sends what is still queued (unless `discarding`), closes the
    /// connection and waits for the thread, at most ``RTMPOutputOptions/finishTimeoutSeconds``
    /// (then blocking calls are interrupted, and it waits 2 s more).
    func finish(discarding: Bool) {
        condition.lock()
        stopRequest = max(stopRequest, discarding ? .now : .drain)
        let wasStarted = started
        condition.broadcast()
        condition.unlock()
        if discarding { interrupt.abort() }
        guard wasStarted else {
            unregisterSecrets()
            return
        }
        if exited.wait(timeout: .now() + options.finishTimeoutSeconds) == .timedOut {
            condition.lock()
            stopRequest = .now
            condition.broadcast()
            condition.unlock()
            interrupt.abort()
            _ = exited.wait(timeout: .now() + 2)
        }
    }

    // MARK: - The thread

    private func run() {
        // Foundation's `Thread.name` does not reach the kernel: without this the thread kept
        // the name of the thread that started it (`rk-out-rtmp`, the handler's).
        SerialThread.nameCurrentThread("rk-rtmp-send")
        FFmpegLog.beginCapture()
        defer {
            FFmpegLog.endCapture()
            condition.lock()
            accepting = false
            condition.unlock()
            unregisterSecrets()
            exited.signal()
        }
        var everLive = false
        var attempt = 0  // reconnection attempts since the connection was lost; 0 while never live
        var lostAt = 0.0
        while true {
            if attempt == 0 {
                setPhase(.connecting)
            } else {
                setPhase(.reconnecting(attempt: attempt))
                if waitForStop(seconds: options.reconnect.delay(beforeAttempt: attempt)) { return setPhase(.finished) }
            }
            if stopRequested(.now) { return setPhase(.finished) }
            let session: SessionEnd
            switch connect() {
            case .failure(let failure):
                session = .lost(failure)
            case .success(let output):
                session = stream(over: output) {
                    if everLive { reconnections += 1 }
                    everLive = true
                    attempt = 0
                    lastError = nil  // live again: what broke the last connection is history
                }
            }
            // Stopped, or cut short by an abort (discarded, or the finish timeout passed).
            guard case .lost(let failure) = session, !interrupt.isAborted else { return setPhase(.finished) }
            lastError = failure.summary
            if !everLive { return fail(endpoint.firstConnectionError(failure)) }
            if stopRequested(.drain) { return setPhase(.finished) }
            if attempt == 0 { lostAt = MonotonicClock.seconds() }
            if attempt >= options.reconnect.maxAttempts {
                setPhase(.gaveUp)
                return fail(endpoint.gaveUpError(failure, attempts: attempt, seconds: MonotonicClock.seconds() - lostAt))
            }
            attempt += 1
        }
    }

    /// Resolves the host, then opens the connection (handshake and publish included), within
    /// the connect timeout.
    private func connect() -> Result<NetworkOutput, RTMPFailure> {
        if let why = RTMPFailure.resolve(endpoint.host, port: endpoint.port) {
            return .failure(RTMPFailure(reason: .unknownHost(why)))
        }
        _ = FFmpegLog.takeCaptured()
        let started = MonotonicClock.seconds()
        interrupt.setDeadline(secondsFromNow: options.connectTimeoutSeconds)
        defer { interrupt.clearDeadline() }
        do {
            return .success(try NetworkOutput(url: endpoint.url, name: endpoint.masked, options: endpoint.ffmpegOptions,
                                              interrupt: interrupt))
        } catch {
            let log = FFmpegLog.takeCaptured()
            let timedOut = error.isInterrupted && !interrupt.isAborted
            return .failure(endpoint.connectFailure(error, log: log, timedOut: timedOut, timeout: options.connectTimeoutSeconds,
                                                    elapsed: MonotonicClock.seconds() - started))
        }
    }

    /// One connection's life: header, then packets until stopped or failed. `wentLive` runs
    /// once the header was accepted.
    private func stream(over output: NetworkOutput, wentLive: () -> Void) -> SessionEnd {
        connection = output
        defer { closeConnection() }
        guard let streams = waitForSession() else { return .stopped }
        var streamIndex: [SampleBufferType: Int] = [:]
        for (index, stream) in streams.enumerated() { streamIndex[stream.type] = index }

        interrupt.setDeadline(secondsFromNow: options.connectTimeoutSeconds)
        let muxer: Muxer
        do {
            muxer = try Muxer(output: output, name: endpoint.masked, container: endpoint.container.name, streams: streams.map(\.format),
                              options: endpoint.container.options)
        } catch {
            let timedOut = error.isInterrupted && !interrupt.isAborted
            interrupt.clearDeadline()
            if interrupt.isAborted { return .stopped }
            return .lost(RTMPFailure.sending(error, timedOut: timedOut, timeout: options.connectTimeoutSeconds))
        }
        interrupt.clearDeadline()
        wentLive()
        setPhase(.live)

        while true {
            enum Next { case packet(PacketQueue.Entry), idle, drained, stop }
            condition.lock()
            var next = Next.idle
            if stopRequest == .now {
                next = .stop
            } else if let entry = queue.popFirst() {
                next = .packet(entry)
            } else if stopRequest == .drain {
                next = .drained
            } else {
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.5))
            }
            condition.unlock()

            switch next {
            case .idle:
                tick()
            case .stop:
                muxer.abort()
                return .stopped
            case .drained:
                interrupt.setDeadline(secondsFromNow: options.writeTimeoutSeconds)
                try? muxer.finish()
                interrupt.clearDeadline()
                _ = waitForStop(seconds: endpoint.secondsToKeepOpenAfterLastPacket, unless: .now)
                return .stopped
            case .packet(let entry):
                guard let index = streamIndex[entry.sample.type],
                      let stamped = timestamps.stamp(H264FillerStripper.strip(entry.sample), stream: index) else {
                    // Audio while this session has no audio stream, or a packet out of order.
                    countDropped(entry)
                    continue
                }
                interrupt.setDeadline(secondsFromNow: options.writeTimeoutSeconds)
                do {
                    try muxer.write(stamped, toStream: index)
                    interrupt.clearDeadline()
                } catch {
                    let timedOut = error.isInterrupted && !interrupt.isAborted
                    interrupt.clearDeadline()
                    muxer.abort()
                    countDropped(entry)
                    if interrupt.isAborted { return .stopped }
                    return .lost(RTMPFailure.sending(error, timedOut: timedOut, timeout: options.writeTimeoutSeconds))
                }
                tick()
            }
        }
    }

    /// Waits until this session can start: a video key frame is first in the queue (packets
    /// before it are dropped). Returns the session's streams, video first; nil when asked to
    /// stop before that.
    private func waitForSession() -> [(type: SampleBufferType, format: EncodedFormat)]? {
        while true {
            condition.lock()
            if stopRequest == .now {
                condition.unlock()
                return nil
            }
            queue.startSession()
            if !queue.isEmpty {
                condition.unlock()
                return streams
            }
            if stopRequest == .drain {
                condition.unlock()
                return nil
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.25))
            condition.unlock()
            tick()
        }
    }

    /// Sleeps `seconds` (reporting status each second); true when a stop of at least `level`
    /// was requested meanwhile.
    private func waitForStop(seconds: Double, unless level: StopRequest = .drain) -> Bool {
        guard seconds > 0 else { return stopRequested(level) }
        let deadline = MonotonicClock.seconds() + seconds
        while true {
            condition.lock()
            let remaining = deadline - MonotonicClock.seconds()
            if stopRequest < level, remaining > 0 { _ = condition.wait(until: Date(timeIntervalSinceNow: min(remaining, 1))) }
            let stopNow = stopRequest >= level
            condition.unlock()
            if stopNow { return true }
            if MonotonicClock.seconds() >= deadline { return false }
            tick()
        }
    }

    private func closeConnection() {
        guard let output = connection else { return }
        interrupt.setDeadline(secondsFromNow: 2)
        try? output.close()
        interrupt.clearDeadline()
        bytesOfClosedConnections += output.bytesWritten
        connection = nil
    }

    private func stopRequested(_ level: StopRequest) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopRequest >= level
    }

    private func countDropped(_ entry: PacketQueue.Entry) {
        condition.lock()
        queue.countDropped(1, video: entry.isVideo)
        condition.unlock()
    }

    /// The queue's counts: what waits and what was dropped (any thread).
    var queueCounts: HandlerCounts {
        condition.lock()
        defer { condition.unlock() }
        return queue.counts
    }

    /// Ends the handler with `error`.
    private func fail(_ error: BroadcastError) {
        condition.lock()
        accepting = false
        queue.dropAll()
        condition.unlock()
        if phase != .gaveUp { setPhase(.failed) }
        context.finishBroadcast(with: error)
    }

    private func unregisterSecrets() {
        for secret in endpoint.secrets { FFmpegLog.removeSecret(secret) }
    }

    // MARK: - Status

    private var bytesSent: Int64 { bytesOfClosedConnections + (connection?.bytesWritten ?? 0) }

    private func setPhase(_ newPhase: Phase) {
        guard newPhase != phase else { return }
        phase = newPhase
        if newPhase != .live { bitrateKbps = 0 }
        publishStatus()
    }

    /// Publishes the counters when a second has passed since the last time.
    private func tick() {
        let now = MonotonicClock.seconds()
        guard now - lastTick >= 1 else { return }
        let bytes = bytesSent
        if phase == .live, lastTick > 0 {
            bitrateKbps = Int((Double(bytes - bytesAtLastTick) * 8 / (now - lastTick) / 1000).rounded())
        }
        lastTick = now
        bytesAtLastTick = bytes
        publishStatus()
    }

    private func publishStatus() {
        condition.lock()
        let dropped = queue.dropped
        condition.unlock()
        var info = ["url": endpoint.masked, "state": phase.text, "bytesSent": String(bytesSent),
                    "bitrateKbps": String(bitrateKbps), "dropped": String(dropped), "reconnections": String(reconnections)]
        info["lastError"] = lastError ?? ""  // empty: removed from the status (live again)
        context.publish(serviceInfo: info)
    }
}
