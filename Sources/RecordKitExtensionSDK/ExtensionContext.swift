import RecordKit
import Synchronization

/// The ``BroadcastContext`` of an out-of-process handler: forwards to the host over the socket.
final class ExtensionContext: BroadcastContext {
    private let socket: PacketSocket
    private let ended = Atomic<Bool>(false)
    private let discarding = Atomic<Bool>(false)
    let formats: [SampleBufferType: FormatDescription]
    let workingDirectory: String?

    init(socket: PacketSocket, formats: [SampleBufferType: FormatDescription], workingDirectory: String?) {
        self.socket = socket
        self.formats = formats
        self.workingDirectory = workingDirectory
    }

    var streams: Set<SampleBufferType> { Set(formats.keys) }

    func finishBroadcast(with error: BroadcastError) {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? socket.send(ExtensionMessage.finish(error).jsonValue)
    }

    func publish(serviceInfo: [String: String]) {
        try? socket.send(ExtensionMessage.publish(serviceInfo).jsonValue)
    }

    var isDiscarding: Bool { discarding.load(ordering: .acquiring) }

    /// Whether the handler ended its own broadcast (it then gets no more samples).
    var hasEnded: Bool { ended.load(ordering: .acquiring) }

    /// Sets ``isDiscarding`` before `broadcastFinished`.
    func markDiscarding(_ value: Bool) { discarding.store(value, ordering: .releasing) }
}
