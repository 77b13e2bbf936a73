import Foundation
import RecordKit
import Synchronization

/// A handler that logs the entry and exit of every call and notices any overlap.
package final class CallLoggingHandler: BroadcastSampleHandler, @unchecked Sendable {
    package enum Call: Equatable { case started, sample(SampleBufferType), paused, resumed, finished }
    package let input: HandlerInput
    private let delay: useconds_t
    private let inCall = Atomic<Bool>(false)
    private let log = Mutex<[Call]>([])
    private let overlaps = Atomic<Int>(0)
    private let lastTimes = Mutex<[SampleBufferType: MediaTime]>([:])
    private let reorders = Atomic<Int>(0)

    package init(input: HandlerInput, delayMicroseconds: useconds_t = 0) {
        self.input = input
        self.delay = delayMicroseconds
    }

    private func call(_ c: Call, _ body: () -> Void = {}) {
        if inCall.exchange(true, ordering: .acquiringAndReleasing) { overlaps.add(1, ordering: .relaxed) }
        log.withLock { $0.append(c) }
        body()
        if delay > 0 { usleep(delay) }
        inCall.store(false, ordering: .releasing)
    }

    package func broadcastStarted(setupInfo: SetupInfo, context: any BroadcastContext) throws { call(.started) }
    package func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        call(.sample(type)) {
            let t = sampleBuffer.timelineTime
            lastTimes.withLock { last in
                if let prev = last[type], t < prev { reorders.add(1, ordering: .relaxed) }
                last[type] = t
            }
        }
    }
    package func broadcastPaused() { call(.paused) }
    package func broadcastResumed() { call(.resumed) }
    package func broadcastFinished() { call(.finished) }

    package var calls: [Call] { log.withLock { $0 } }
    package var overlapCount: Int { overlaps.load(ordering: .relaxed) }
    package var reorderCount: Int { reorders.load(ordering: .relaxed) }
    package func count(_ type: SampleBufferType) -> Int { calls.filter { $0 == .sample(type) }.count }
}
