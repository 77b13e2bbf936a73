import CShims
import Foundation
import Glibc
import RecordKit
import RecordKitExtensionSDK

/// One running out-of-process extension and the conversation with it (docs/EXTENSIONS.md,
/// "Protocol"): spawn and handshake, then one handler call at a time, each sent only after the
/// previous one was answered with `done`, within the manifest's time limit.
///
/// Used from the handler's serial queue only; the reaper and the memory watchdog reach the
/// extension through the ``ExtensionSupervisor``.
final class ExtensionSession {
    private let manifest: ExtensionManifest
    private let process: ExtensionProcess
    private let socket: PacketSocket
    private let supervisor: ExtensionSupervisor
    private let arena: SharedMemoryArena
    private var watchdog: MemoryWatchdog?
    private var context: BroadcastContext?
    private var formatIDs: [FormatDescription: Int] = [:]
    private var closed = false
    /// Whether the extension attaches System V segments, so capture frames can be lent to it.
    private var lendsFrames = false
    /// Set `RECORDKIT_EXTENSION_COPY=1` to copy every frame (to measure what lending saves).
    private static let alwaysCopy = ProcessInfo.processInfo.environment["RECORDKIT_EXTENSION_COPY"] == "1"
    /// Delivery counters.
    private(set) var statistics = DeliveryStatistics()

    private enum CallResult {
        case done(BroadcastError?)
        case failed
    }

    private init(manifest: ExtensionManifest, process: ExtensionProcess, socket: PacketSocket, supervisor: ExtensionSupervisor) {
        self.manifest = manifest
        self.process = process
        self.socket = socket
        self.supervisor = supervisor
        self.arena = SharedMemoryArena(name: manifest.name)
    }

    // MARK: Start

    /// Spawns `executable` and completes the handshake; throws the reason as a broadcast error.
    static func launch(manifest: ExtensionManifest, executable: String, directory: String,
                       supervisor: ExtensionSupervisor) throws(BroadcastError) -> ExtensionSession {
        var fds: [Int32] = [-1, -1]
        guard cshim_seqpacket_pair(&fds) == 0 else {
            throw BroadcastError(.internalError, "cannot create the extension's socket: \(String(cString: strerror(errno)))")
        }
        var environment = ProcessInfo.processInfo.environment
        environment[ExtensionProtocol.descriptorVariable] = "3"
        environment["RECORDKIT_EXTENSION_NAME"] = manifest.name
        environment["RECORDKIT_EXTENSION_DIR"] = directory
        let process: ExtensionProcess
        do throws(ExtensionFailure) {
            process = try ExtensionProcess.spawn(executable: executable, environment: environment, socket: fds[1]) { status in
                supervisor.processExited(status)
            }
        } catch {
            Glibc.close(fds[0]); Glibc.close(fds[1])
            throw BroadcastError(.internalError, "extension process \(error)")
        }
        Glibc.close(fds[1])
        supervisor.attach(process)
        let session = ExtensionSession(manifest: manifest, process: process, socket: PacketSocket(fd: fds[0]), supervisor: supervisor)
        session.watchdog = MemoryWatchdog(pid: process.pid, limitMB: manifest.limits.memoryMB) { used in
            supervisor.fail(.memory(limitMB: manifest.limits.memoryMB, usedMB: used))
        }
        do throws(ExtensionFailure) {
            try session.handshake()
        } catch {
            supervisor.fail(error)
            session.close()
            throw BroadcastError(.internalError, supervisor.message(for: supervisor.failure ?? error))
        }
        return session
    }

    private func handshake() throws(ExtensionFailure) {
        supervisor.setCall("the handshake")
        defer { supervisor.setCall(nil) }
        let limit = manifest.limits.lifecycleTimeoutMs
        let reply: ExtensionMessage?
        do throws(WireError) {
            try socket.send(HostMessage.hello(protocols: [ExtensionProtocol.version], features: [ExtensionProtocol.featureSysV]).jsonValue)
            reply = try socket.receive(timeoutMs: limit).map { p throws(WireError) in try parse(p) }
        } catch {
            throw failure(for: error)
        }
        guard let reply else { throw ExtensionFailure.handshake("no answer to hello within \(limit) ms") }
        guard case .hello(let version, let features, let input) = reply else {
            throw ExtensionFailure.protocolViolation("its first message is not hello")
        }
        guard version == ExtensionProtocol.version else {
            throw ExtensionFailure.handshake("it speaks protocol \(version); this recorder speaks \(ExtensionProtocol.version)")
        }
        lendsFrames = features.contains(ExtensionProtocol.featureSysV) && !Self.alwaysCopy
        if let input {
            let declared = try? HandlerInput(json: input, path: "hello.input")
            if declared != manifest.input {
                throw ExtensionFailure.inputMismatch(code: declared?.summary ?? "an unreadable input", manifest: manifest.inputSummary)
            }
        }
    }

    /// `broadcastStarted`: throws the extension's refusal, or why it failed.
    func start(setup: SetupInfo, context: BroadcastContext) throws(BroadcastError) {
        self.context = context
        let streams = SampleBufferType.allCases.filter { context.streams.contains($0) }
        switch call(.started(setup: setup.values, streams: streams), timeoutMs: manifest.limits.lifecycleTimeoutMs, name: "broadcastStarted") {
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

    // MARK: Calls

    /// `processSampleBuffer`: copies the payload into a shared slot and waits for `done`.
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
                try socket.send(HostMessage.region(id: a.id, size: a.size, sysvID: a.systemVSegment).jsonValue, attaching: a.descriptor ?? -1)
            }
            if let destination = lease.pointer, let base = buffer.bytes.baseAddress, buffer.count > 0 {
                memcpy(destination, base, buffer.count)
                statistics.bytesCopied += Int64(buffer.count)
            } else if lease.pointer == nil {
                statistics.framesLent += 1
            }
            let header = SampleHeader(stream: sample.type, format: try formatID(sample.formatDescription),
                                      presentationTime: sample.presentationTime, duration: sample.duration,
                                      ref: lease.ref, region: lease.region, offset: lease.offset, length: buffer.count, detail: detail)
            let sent = cshim_monotonic_ns()
            statistics.hostCPUNs += cshim_thread_cpu_ns() - cpuStart
            let result = call(.sample(header), timeoutMs: manifest.limits.callTimeoutMs, name: "processSampleBuffer")
            let cpuAfter = cshim_thread_cpu_ns()
            if case .done = result {
                statistics.delivered += 1
                statistics.roundTripNs += cshim_monotonic_ns() - sent
            }
            statistics.hostCPUNs += cshim_thread_cpu_ns() - cpuAfter
        } catch {
            supervisor.fail(failure(for: error))
        }
    }

    /// Where the payload goes: lent in place when it is a frame in shared memory the extension
    /// can attach, else copied into a slot; nil when no slot of its size is free.
    private func place(_ sample: SampleBuffer, _ buffer: MediaBuffer) throws(WireError) -> (SharedMemoryArena.Lease, SharedMemoryArena.Announcement?)? {
        if lendsFrames, case .pixels = sample.payload, let location = buffer.sharedLocation,
           let lent = arena.lend(sample, at: location) {
            return lent
        }
        return try arena.lease(byteCount: buffer.count)
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

    /// Ends the process (politely after `finished`, else by SIGKILL) and frees everything.
    @discardableResult
    func close() -> Double? {
        guard !closed else { return process.exitStatus?.cpuSeconds }
        closed = true
        watchdog?.stop()
        socket.close()  // the extension sees the end of the stream
        var status = process.waitForExit(timeoutMs: 2_000)
        if status == nil {
            process.kill()
            status = process.waitForExit(timeoutMs: 5_000)
        }
        return status?.cpuSeconds
    }

    private var isAlive: Bool { !closed && !supervisor.hasFailed }

    /// Sends one call and waits for its `done`, handling what the extension sends meanwhile.
    private func call(_ message: HostMessage, timeoutMs: Int, name: String) -> CallResult {
        supervisor.setCall(name)
        defer { supervisor.setCall(nil) }
        do throws(WireError) {
            try socket.send(message.jsonValue)
            let deadline = cshim_monotonic_ns() + UInt64(timeoutMs) * 1_000_000
            while true {
                let now = cshim_monotonic_ns()
                let remaining = now >= deadline ? 0 : Int((deadline - now + 999_999) / 1_000_000)
                guard let packet = try socket.receive(timeoutMs: remaining) else {
                    supervisor.fail(.timedOut(milliseconds: timeoutMs, call: name))
                    return .failed
                }
                if case .done(let released, let error) = try parse(packet) {
                    try release(released)
                    return .done(error)
                }
            }
        } catch {
            supervisor.fail(failure(for: error))
            return .failed
        }
    }

    /// Handles what the extension sent between calls (releases, publish, finish).
    private func drainPending() {
        do throws(WireError) {
            while let packet = try socket.receive(timeoutMs: 0) {
                if case .done = try parse(packet) { throw WireError.malformed("a done message when no call was made") }
            }
        } catch {
            supervisor.fail(failure(for: error))
        }
    }

    /// Parses one message and acts on those that need no caller (release, publish, finish).
    private func parse(_ packet: PacketSocket.Packet) throws(WireError) -> ExtensionMessage {
        if let fd = packet.descriptor {
            Glibc.close(fd)
            throw WireError.malformed("a message with a descriptor attached; extensions send none")
        }
        let json = try packet.json()
        let message: ExtensionMessage
        do throws(SchemaError) { message = try ExtensionMessage(json: json) } catch {
            throw WireError.malformed("\(error) in \(PacketSocket.Packet.preview(packet.bytes))")
        }
        switch message {
        case .release(let refs): try release(refs)
        case .publish(let info): context?.publish(serviceInfo: info)
        case .finish(let error): context?.finishBroadcast(with: error)
        case .hello, .done: break
        }
        return message
    }

    private func release(_ refs: [Int]) throws(WireError) {
        for ref in refs where !arena.release(ref) {
            throw WireError.malformed("released ref \(ref), which it does not hold")
        }
    }

    private func formatID(_ format: FormatDescription) throws(WireError) -> Int {
        if let id = formatIDs[format] { return id }
        let id = formatIDs.count + 1
        try socket.send(HostMessage.format(id: id, description: format).jsonValue)
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

    /// The failure a wire error means; an end of stream waits briefly for the exit status, so
    /// a crash is reported as the crash it is.
    private func failure(for error: WireError) -> ExtensionFailure {
        switch error {
        case .closed:
            // Everything it sent before it went has been read: now its exit is the news.
            if let status = process.waitForExit(timeoutMs: 1_000) { return .died(status, call: supervisor.currentCall) }
            return .closedConnection
        case .malformed(let what): return .malformed(what)
        case .system(let what): return .protocolViolation(what)
        }
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
