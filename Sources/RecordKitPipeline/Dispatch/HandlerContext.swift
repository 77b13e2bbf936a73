import RecordKit
import Synchronization

/// The `BroadcastContext` given to one handler: forwards to its runner, and carries what the
/// recording knows at start (its streams' formats, its working directory).
final class HandlerContext: BroadcastContext, @unchecked Sendable {
    private weak var runner: HandlerRunner?
    private let discarding: Atomic<Bool>
    let formats: [SampleBufferType: FormatDescription]
    let workingDirectory: String?

    init(runner: HandlerRunner, formats: [SampleBufferType: FormatDescription], workingDirectory: String?) {
        self.runner = runner
        self.formats = formats
        self.workingDirectory = workingDirectory
        self.discarding = Atomic(false)
    }

    var streams: Set<SampleBufferType> { Set(formats.keys) }

    func finishBroadcast(with error: BroadcastError) { runner?.end(with: error) }

    func publish(serviceInfo: [String: String]) { runner?.publish(serviceInfo) }

    func publish(event: BroadcastEvent) { runner?.announce(event) }

    var isDiscarding: Bool { discarding.load(ordering: .acquiring) }

    /// Marks the recording as being discarded (before `broadcastFinished`).
    func markDiscarding() { discarding.store(true, ordering: .releasing) }
}
