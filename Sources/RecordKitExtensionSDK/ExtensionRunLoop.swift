import Glibc
import RecordKit

/// The extension side of the protocol: handshake, then one host message at a time, each handler
/// call answered with `done` once the handler returned (docs/EXTENSIONS.md, "Protocol").
final class ExtensionRunLoop {
    private let socket: PacketSocket
    private let handler: any BroadcastSampleHandler
    private let releases: ReleaseQueue
    private var regions: [Int: MappedRegion] = [:]
    private var formats: [Int: FormatDescription] = [:]
    private var context: ExtensionContext?
    private var finished = false

    init(socket: PacketSocket, handler: any BroadcastSampleHandler) {
        self.socket = socket
        self.handler = handler
        self.releases = ReleaseQueue(socket: socket)
    }

    /// Serves the host until `finished` (0), the host goes away (0), or a protocol error (70).
    func run() -> Int32 {
        do throws(WireError) {
            try handshake()
            while !finished {
                guard let packet = try socket.receive(timeoutMs: nil) else { continue }
                let json = try packet.json()
                let message: HostMessage
                do throws(SchemaError) { message = try HostMessage(json: json) } catch {
                    throw WireError.malformed("host message: \(error)")
                }
                try handle(message, descriptor: packet.descriptor)
            }
            return 0
        } catch .closed {
            // The recorder went away (or killed the broadcast): let the handler close its files.
            if context != nil, !finished { handler.broadcastFinished() }
            return 0
        } catch {
            ExtensionLog.error("protocol error: \(error)")
            if context != nil, !finished { handler.broadcastFinished() }
            return 70
        }
    }

    private func handshake() throws(WireError) {
        guard let packet = try socket.receive(timeoutMs: 10_000) else { throw WireError.malformed("no hello from the host within 10 s") }
        guard case .hello(let protocols, let features) = try? HostMessage(json: packet.json()) else {
            throw WireError.malformed("the host's first message is not hello")
        }
        guard protocols.contains(ExtensionProtocol.version) else {
            throw WireError.malformed("the host speaks protocol \(protocols), this SDK speaks \(ExtensionProtocol.version)")
        }
        let ours = features.filter { $0 == ExtensionProtocol.featureSysV || $0 == ExtensionProtocol.featureAnnotations }
        let declared = handler.input
        try socket.send(ExtensionMessage.hello(protocolVersion: ExtensionProtocol.version, features: ours,
                                               input: declared == .asDeclaredByManifest ? nil : declared.jsonValue).jsonValue)
    }

    private func handle(_ message: HostMessage, descriptor: Int32?) throws(WireError) {
        switch message {
        case .hello:
            throw WireError.malformed("a second hello")
        case .region(let id, let size, let sysvID):
            if let sysvID {
                if let descriptor { close(descriptor) }
                regions[id] = try MappedRegion(systemV: sysvID, size: size)
            } else {
                guard let descriptor else { throw WireError.malformed("region \(id) came without a descriptor") }
                regions[id] = try MappedRegion(memfd: descriptor, size: size)
            }
        case .format(let id, let description):
            formats[id] = description
        case .started(let setup, let streamFormats, let workingDirectory):
            var known: [SampleBufferType: FormatDescription] = [:]
            for (type, id) in streamFormats {
                guard let format = formats[id] else { throw WireError.malformed("stream \(type.rawValue) has unknown format \(id)") }
                known[type] = format
            }
            let context = ExtensionContext(socket: socket, formats: known, workingDirectory: workingDirectory)
            self.context = context
            var refusal: BroadcastError?
            do {
                try handler.broadcastStarted(setupInfo: SetupInfo(setup), context: context)
            } catch let error as BroadcastError {
                refusal = error
            } catch {
                refusal = BroadcastError(.internalError, "\(error)")
            }
            try socket.send(ExtensionMessage.done(released: [], error: refusal).jsonValue)
            if refusal != nil { finished = true }
        case .sample(let header):
            releases.beginCall()
            try deliver(header)
            try socket.send(ExtensionMessage.done(released: releases.endCall(), error: nil).jsonValue)
        case .paused:
            if context?.hasEnded == false { handler.broadcastPaused() }
            try socket.send(ExtensionMessage.done(released: [], error: nil).jsonValue)
        case .resumed:
            if context?.hasEnded == false { handler.broadcastResumed() }
            try socket.send(ExtensionMessage.done(released: [], error: nil).jsonValue)
        case .annotated(let annotation):
            if context?.hasEnded == false { handler.broadcastAnnotated(annotation) }
            try socket.send(ExtensionMessage.done(released: [], error: nil).jsonValue)
        case .finished(let discarding):
            context?.markDiscarding(discarding)
            finished = true
            handler.broadcastFinished()
            try socket.send(ExtensionMessage.done(released: releases.endCall(), error: nil).jsonValue)
        }
    }

    /// Builds the sample over shared memory and hands it to the handler. Kept apart so every
    /// reference the SDK holds is gone when it returns: what the handler did not keep is
    /// released within this call.
    @inline(never)
    private func deliver(_ header: SampleHeader) throws(WireError) {
        guard let region = regions[header.region] else { throw WireError.malformed("sample in unknown region \(header.region)") }
        guard header.offset <= region.size, header.length <= region.size - header.offset else {
            throw WireError.malformed("sample bytes \(header.offset)+\(header.length) outside region \(header.region) of \(region.size)")
        }
        guard let format = formats[header.format] else { throw WireError.malformed("sample of unknown format \(header.format)") }
        let releases = self.releases, ref = header.ref
        let buffer = MediaBuffer(bytes: UnsafeRawBufferPointer(start: region.base + header.offset, count: header.length)) {
            _ = region
            releases.release(ref)
        }
        guard context?.hasEnded == false else { return }
        let payload: SampleBuffer.Payload
        switch header.detail {
        case .pixels(let offsets, let strides):
            payload = .pixels(PixelData(buffer: buffer, planeOffsets: offsets, bytesPerRow: strides))
        case .pcm(let frames, let start):
            payload = .pcm(PCMData(buffer: buffer, frameCount: frames, startFrame: start))
        case .packet(let dts, let key, let encoder):
            payload = .packet(EncodedPacket(data: buffer, decodeTime: dts, isKeyFrame: key, encoderID: encoder))
        }
        let sample = SampleBuffer(type: header.stream, presentationTime: header.presentationTime, duration: header.duration,
                                  formatDescription: format, payload: payload, frameInfo: header.frameInfo)
        handler.processSampleBuffer(sample, with: header.stream)
    }
}
