import Synchronization
import XCTest
import RecordKit
@testable import RecordKitPipeline

/// One queue and one drop policy per output: the runner of a handler that owns its queue
/// (a live stream) neither queues nor drops, and reports the handler's own counts.
final class QueueOwningRunnerTests: XCTestCase {
    /// A stalled network: the handler keeps only the newest group of pictures (drops the older
    /// ones whole when a key frame comes) and logs every call, flagging any that overlap.
    private final class StalledStream: QueueOwningHandler, @unchecked Sendable {
        enum Call: Equatable { case video(key: Bool), paused, resumed, finished }
        private struct State {
            var calls: [Call] = []
            var waiting: [Bool] = []  // key-frame flags of the video waiting
            var counts = HandlerCounts()
        }
        private let state = Mutex(State())
        private let inCall = Atomic<Bool>(false)
        let overlaps = Atomic<Int>(0)

        var input: HandlerInput { HandlerInput(video: .encoded(.fileDefault)) }
        var calls: [Call] { state.withLock { $0.calls } }
        var queueCounts: HandlerCounts { state.withLock { $0.counts } }

        private func log(_ call: Call, _ body: (inout State) -> Void = { _ in }) {
            if inCall.exchange(true, ordering: .acquiringAndReleasing) { overlaps.add(1, ordering: .relaxed) }
            state.withLock { s in
                s.calls.append(call)
                body(&s)
            }
            inCall.store(false, ordering: .releasing)
        }

        func broadcastStarted(setupInfo: SetupInfo, context: any BroadcastContext) throws {}
        func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
            guard case .packet(let p) = sampleBuffer.payload else { return }
            log(.video(key: p.isKeyFrame)) { s in
                if p.isKeyFrame, !s.waiting.isEmpty {
                    s.counts.droppedVideo += Int64(s.waiting.count)  // the older group, whole
                    s.waiting.removeAll()
                }
                s.waiting.append(p.isKeyFrame)
                s.counts.queued = s.waiting.count
                s.counts.queueHighWater = max(s.counts.queueHighWater, s.waiting.count)
            }
        }
        func broadcastPaused() { log(.paused) }
        func broadcastResumed() { log(.resumed) }
        func broadcastFinished() { log(.finished) }
    }

    private struct NoContext: BroadcastContext {
        var streams: Set<SampleBufferType> { [.video] }
        var formats: [SampleBufferType: FormatDescription] { [:] }
        var workingDirectory: String? { nil }
        var isDiscarding: Bool { false }
        func publish(serviceInfo: [String: String]) {}
        func finishBroadcast(with error: BroadcastError) {}
    }

    private static func videoPacket(frame: Int, key: Bool) -> SampleBuffer {
        let time = MediaTime(value: Int64(frame), timescale: 30)
        let format = EncodedFormat(codec: .h264, timescale: 30, extradata: [1], width: 16, height: 16, frameRate: 30)
        return SampleBuffer(type: .video, presentationTime: time, duration: MediaTime(value: 1, timescale: 30),
                            formatDescription: .encoded(format),
                            payload: .packet(EncodedPacket(data: MediaBuffer(copying: [0, 0, 0, 1, 0x65]), decodeTime: time,
                                                           isKeyFrame: key, encoderID: "test")))
    }

    func testTheHandlersQueueIsTheOnlyQueueAndItsCountsAreTheStatistics() throws {
        let stream = StalledStream()
        // A runner bound far below what arrives: a runner that queued would drop here itself.
        let runner = HandlerRunner(name: "rtmp", handler: stream, routes: [.video(.encoded(.fileDefault))],
                                   limits: HandlerRunner.Limits(video: 5), onEnded: { _, _ in })
        try runner.start(setupInfo: SetupInfo(), context: NoContext())
        // 100 frames, a key frame every 30, from two threads in turn (as capture and encoder
        // threads release them), with a pause and a resume in between.
        for frame in 0..<50 { runner.enqueue(Self.videoPacket(frame: frame, key: frame % 30 == 0)) }
        runner.paused()
        runner.resumed()
        let second = Thread { for frame in 50..<100 { runner.enqueue(Self.videoPacket(frame: frame, key: frame % 30 == 0)) } }
        second.start()
        while !second.isFinished { usleep(1000) }
        let finished = DispatchSemaphore(value: 0)
        runner.finish { finished.signal() }
        runner.enqueue(Self.videoPacket(frame: 100, key: true))  // after finish: never reaches the handler
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)

        let calls = stream.calls
        XCTAssertEqual(calls.count, 100 + 3, "every frame reached the handler, none after finish: \(calls.count)")
        XCTAssertEqual(calls[50], .paused, "lifecycle calls stay in order with the samples")
        XCTAssertEqual(calls[51], .resumed)
        XCTAssertEqual(calls.last, .finished)
        XCTAssertEqual(stream.overlaps.load(ordering: .relaxed), 0, "calls never overlap")

        // Key frames at 0, 30, 60, 90: the handler dropped the groups at 0, 30 and 60, whole.
        let stats = runner.snapshot.statistics
        XCTAssertEqual(stream.queueCounts.droppedVideo, 90)
        XCTAssertEqual(stats.droppedVideo, 90, "status reports the handler's drops, and only those")
        XCTAssertEqual(stats.delivered, 100, "the runner dropped nothing")
        XCTAssertEqual(stats.queued, 10, "what waits is the handler's queue")
        XCTAssertEqual(stats.queueHighWater, 30)
    }
}
