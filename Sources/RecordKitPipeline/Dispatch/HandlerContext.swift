import RecordKit
import Synchronization

/// The `BroadcastContext` given to one handler: forwards to its runner, and carries what the
/// recording knows at start (its streams' formats, its working directory); also the
/// recording's status and controls (``BroadcastControlling``), when the recorder links them.
final class HandlerContext: BroadcastContext, BroadcastControlling, @unchecked Sendable {
    private weak var runner: HandlerRunner?
    private let discarding: Atomic<Bool>
    let formats: [SampleBufferType: FormatDescription]
    let workingDirectory: String?

    private let controlLink: RecordingControlLink?

    init(runner: HandlerRunner, formats: [SampleBufferType: FormatDescription], workingDirectory: String?,
         controlLink: RecordingControlLink? = nil) {
        self.controlLink = controlLink
        self.runner = runner
        self.formats = formats
        self.workingDirectory = workingDirectory
        self.discarding = Atomic(false)
    }

    var streams: Set<SampleBufferType> { Set(formats.keys) }

    /// Whether this is the context of `runner`.
    func serves(_ runner: HandlerRunner) -> Bool { self.runner === runner }

    func finishBroadcast(with error: BroadcastError) { runner?.end(with: error) }

    func publish(serviceInfo: [String: String]) { runner?.publish(serviceInfo) }

    func recordingStatusJSON() -> [UInt8] { controlLink?.statusJSON() ?? Array("{}".utf8) }

    func requestControl(_ request: BroadcastControlRequest, completion: @escaping @Sendable (BroadcastError?) -> Void) {
        guard let controlLink else { return completion(BroadcastError(.internalError, "this recording offers no controls")) }
        controlLink.perform(request, completion: completion)
    }
    func publish(event: BroadcastEvent) { runner?.announce(event) }

    var isDiscarding: Bool { discarding.load(ordering: .acquiring) }

    /// Marks the recording as being discarded (before `broadcastFinished`).
    func markDiscarding() { discarding.store(true, ordering: .releasing) }
}
