import CShims
import Glibc
import RecordKit
import RecordKitExtensionSDK
import RecordKitSupport

/// The conversation with one running extension (docs/EXTENSIONS.md, "Protocol"), once
/// ``ExtensionLauncher`` has started and greeted it: one handler call at a time, each sent only
/// after the previous one was answered with `done`, within the manifest's time limit.
///
/// Used from the handler's serial queue only; the reaper and the memory watchdog reach the
/// extension through the ``ExtensionSupervisor``.
final class ExtensionSession {
    private let manifest: ExtensionManifest
    private let process: ExtensionProcess
    private let channel: ExtensionChannel
    private let supervisor: ExtensionSupervisor
    private let watchdog: MemoryWatchdog
    private let arena: SharedMemoryArena
    private var context: BroadcastContext?
    private var formatIDs: [FormatDescription: Int] = [:]
    private var closed = false
    /// Whether capture frames are lent in place (the extension attaches System V segments).
    var lendsFrames = false
    /// Whether the extension accepted `annotated` messages (set once, by the handshake).
    var takesAnnotations = false
    /// Delivery counters.
    private(set) var statistics = DeliveryStatistics()

    private enum CallResult {
        case done(BroadcastError?)
        case failed
    }

    /// A session over a started process (see ``ExtensionLauncher``).
    init(manifest: ExtensionManifest, process: ExtensionProcess, channel: ExtensionChannel,
         supervisor: ExtensionSupervisor, watchdog: MemoryWatchdog) {
        self.manifest = manifest
        self.process = process
        self.channel = channel
        self.supervisor = supervisor
        self.watchdog = watchdog
        self.arena = SharedMemoryArena(name: manifest.name, lent: supervisor.lentFrames)
    }

    /// `broadcastStarted`: throws the extension's refusal, or why it failed.
    func start(setup: SetupInfo, context: BroadcastContext) throws(BroadcastError) {
        self.context = context
        // Every stream's format goes out before `started`, so the extension knows them all there.
        var formats: [SampleBufferType: Int] = [:]
        do throws(WireError) {
            for (type, format) in context.formats { formats[type] = try formatID(format) }
        } catch {
            close()
            throw BroadcastError(.internalError, "extension '\(manifest.name)': announcing the stream formats failed: \(error)")
        }
        switch call(.started(setup: setup.values, formats: formats, workingDirectory: context.workingDirectory),
                    timeoutMs: manifest.limits.lifecycleTimeoutMs, name: "broadcastStarted") {
        case .done(nil):
            supervisor.attach(context)
        case .done(let refusal?):
            supervisor.beginOrderlyExit()
            close()
            throw refusal
        case .failed:
            close()
            throw BroadcastError(.internalError, supervisor.message(for: supervisor.failure ?? .closedConnection))
        }
    }

    /// `processSampleBuffer`: puts the payload in shared memory (lent or copied) and waits for `done`.
    func deliver(_ sample: SampleBuffer) {
        guard isAlive else { return }
        let cpuStart = cshim_thread_cpu_ns()
        drainPending()
        guard isAlive else { return }
        let (buffer, detail) = sample.wirePayload
        do throws(WireError) {
            guard let (lease, announcement) = try place(sample, buffer) else {
                noSlot(for: sample)
                return
            }
            if let a = announcement {
                try channel.send(.region(id: a.id, size: a.size, sysvID: a.systemVSegment), attaching: a.descriptor ?? -1)
            }
            if let destination = lease.pointer {
                if let base = buffer.bytes.baseAddress, buffer.count > 0 { memcpy(destination, base, buffer.count) }
                statistics.bytesCopied += Int64(buffer.count)
            } else {
                statistics.framesLent += 1
            }
            let header = SampleHeader(stream: sample.type, format: try formatID(sample.formatDescription),
                                      presentationTime: sample.presentationTime, duration: sample.duration,
                                      ref: lease.ref, region: lease.region, offset: lease.offset, length: buffer.count, detail: detail,
                                      frameInfo: sample.frameInfo)
            let sent = MonotonicClock.nanoseconds()
            statistics.hostCPUNs += cshim_thread_cpu_ns() - cpuStart
            let result = call(.sample(header), timeoutMs: manifest.limits.callTimeoutMs, name: "processSampleBuffer")
            let cpuAfter = cshim_thread_cpu_ns()
            if case .done = result {
                statistics.delivered += 1
                statistics.roundTripNs += MonotonicClock.nanoseconds() - sent
            }
            statistics.hostCPUNs += cshim_thread_cpu_ns() - cpuAfter
        } catch {
            supervisor.fail(supervisor.failure(for: error))
        }
    }

    /// `broadcastPaused` or `broadcastResumed`.
    func lifecycle(_ message: HostMessage, name: String) {
        guard isAlive else { return }
        _ = call(message, timeoutMs: manifest.limits.callTimeoutMs, name: name)
    }

    /// `broadcastFinished`, then the orderly end of the process; returns its CPU seconds.
    @discardableResult
    func finish(discarding: Bool) -> Double? {
        if isAlive, case .done = call(.finished(discarding: discarding), timeoutMs: manifest.limits.lifecycleTimeoutMs, name: "broadcastFinished") {
            supervisor.beginOrderlyExit()
        }
        return close()
    }

    /// Ends the process (politely after `finished`, else by SIGKILL) and frees everything;
    /// returns its CPU seconds.
    @discardableResult
    func close() -> Double? {
        guard !closed else { return process.exitStatus?.cpuSeconds }
        closed = true
        watchdog.stop()
        channel.close()  // the extension sees the end of the stream
        var status = process.waitForExit(timeoutMs: 2_000)
        if status == nil {
            process.kill()
            status = process.waitForExit(timeoutMs: 5_000)
        }
        supervisor.lentFrames.removeAll()
        return status?.cpuSeconds
    }

    private var isAlive: Bool { !closed && !supervisor.hasFailed }

    /// Where the payload goes: lent in place when it is a frame in shared memory the extension
    /// can attach, else copied into a slot; nil when no slot of its size is free.
    private func place(_ sample: SampleBuffer, _ buffer: MediaBuffer) throws(WireError) -> (SharedMemoryArena.Lease, SharedMemoryArena.Announcement?)? {
        if lendsFrames, case .pixels = sample.payload, let location = buffer.sharedLocation,
           let lent = arena.lend(sample, at: location) {
            return lent
        }
        return try arena.lease(byteCount: buffer.count)
    }

    /// Sends one call and waits for its `done`, handling what the extension sends meanwhile.
    private func call(_ message: HostMessage, timeoutMs: Int, name: String) -> CallResult {
        supervisor.setCall(name)
        defer { supervisor.setCall(nil) }
        do throws(WireError) {
            try channel.send(message)
            let deadline = MonotonicClock.nanoseconds() + UInt64(timeoutMs) * 1_000_000
            while true {
                let now = MonotonicClock.nanoseconds()
                let remaining = now >= deadline ? 0 : Int((deadline - now + 999_999) / 1_000_000)
                guard let reply = try channel.receive(timeoutMs: remaining) else {
                    supervisor.fail(.timedOut(milliseconds: timeoutMs, call: name))
                    return .failed
                }
                if case .done(let released, let error) = reply {
                    try release(released)
                    return .done(error)
                }
                try handle(reply)
            }
        } catch {
            supervisor.fail(supervisor.failure(for: error))
            return .failed
        }
    }

    /// Handles what the extension sent between calls (releases, publish, finish).
    private func drainPending() {
        do throws(WireError) {
            while let message = try channel.receive(timeoutMs: 0) { try handle(message) }
        } catch {
            supervisor.fail(supervisor.failure(for: error))
        }
    }

    /// Acts on a message that is not a call's answer.
    private func handle(_ message: ExtensionMessage) throws(WireError) {
        switch message {
        case .release(let refs): try release(refs)
        case .publish(let info): context?.publish(serviceInfo: info)
        case .finish(let error): context?.finishBroadcast(with: error)
        case .hello: throw WireError.malformed("a second hello")
        case .done: throw WireError.malformed("a done message when no call was made")
        }
    }

    private func release(_ refs: [Int]) throws(WireError) {
        for ref in refs where !arena.release(ref) {
            throw WireError.malformed("released ref \(ref), which it does not hold")
        }
    }

    private func formatID(_ format: FormatDescription) throws(WireError) -> Int {
        if let id = formatIDs[format] { return id }
        let id = formatIDs.count + 1
        try channel.send(.format(id: id, description: format))
        formatIDs[format] = id
        return id
    }

    /// Every slot of this size is held by the extension: video is dropped (like a full queue);
    /// audio and packets must not be, so that ends the extension.
    private func noSlot(for sample: SampleBuffer) {
        statistics.droppedNoSlot += 1
        if case .pixels = sample.payload { return }
        supervisor.fail(.protocolViolation("kept every shared buffer of \(SharedMemoryArena.slotSize(for: sample.wirePayload.0.count)) bytes without releasing them"))
    }

    deinit { close() }
}

extension SampleBuffer {
    /// The payload's bytes and the `sample` message's particulars.
    var wirePayload: (MediaBuffer, SampleHeader.Detail) {
        switch payload {
        case .pixels(let p): return (p.buffer, .pixels(planeOffsets: p.planeOffsets, bytesPerRow: p.bytesPerRow))
        case .pcm(let p): return (p.buffer, .pcm(frameCount: p.frameCount, startFrame: p.startFrame))
        case .packet(let p): return (p.data, .packet(decodeTime: p.decodeTime, isKeyFrame: p.isKeyFrame, encoderID: p.encoderID))
        }
    }
}
