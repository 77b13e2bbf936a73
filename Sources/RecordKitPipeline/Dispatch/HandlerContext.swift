import RecordKit
import Synchronization

/// The `BroadcastContext` given to one handler: forwards to its runner and the recording.
final class HandlerContext: BroadcastContext, @unchecked Sendable {
    private weak var runner: HandlerRunner?
    private let discarding: Atomic<Bool>
    let streams: Set<SampleBufferType>

    init(runner: HandlerRunner, streams: Set<SampleBufferType>) {
        self.runner = runner
        self.streams = streams
        self.discarding = Atomic(false)
    }

    func finishBroadcast(with error: BroadcastError) { runner?.end(with: error) }

    func publish(serviceInfo: [String: String]) { runner?.publish(serviceInfo) }

    var isDiscarding: Bool { discarding.load(ordering: .acquiring) }

    /// Marks the recording as being discarded (before `broadcastFinished`).
    func markDiscarding() { discarding.store(true, ordering: .releasing) }
}
