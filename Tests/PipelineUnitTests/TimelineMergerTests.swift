import HandlerTestSupport
import XCTest
import RecordKit
@testable import RecordKitPipeline

/// The merger releases samples of several producers in timeline order.
final class TimelineMergerTests: XCTestCase {
    private func pcm(_ type: SampleBufferType, frame: Int64) -> SampleBuffer {
        SampleBuffer(type: type, presentationTime: MediaTime(value: frame, timescale: 48_000), duration: MediaTime(value: 1024, timescale: 48_000),
                     formatDescription: .audio(.standard),
                     payload: .pcm(PCMData(buffer: MediaBuffer(copying: [UInt8](repeating: 0, count: 8)), frameCount: 1, startFrame: frame)))
    }

    func testReleasesInTimelineOrderOnceEveryRouteHasASample() {
        let a = SampleRoute.audio(.audioApp, .raw), m = SampleRoute.audio(.audioMic, .raw)
        var merger = TimelineMerger(routes: [a, m], maxHoldNs: 10_000_000_000)
        var out: [(SampleBufferType, Int64)] = []
        let record: (SampleBuffer, SampleRoute) -> Void = { s, _ in out.append((s.type, s.presentationTime.value)) }
        merger.push(pcm(.audioApp, frame: 0), on: a, release: record)
        merger.push(pcm(.audioApp, frame: 1024), on: a, release: record)
        XCTAssertTrue(out.isEmpty, "nothing goes out while the mic route may still deliver earlier samples")
        merger.push(pcm(.audioMic, frame: 512), on: m, release: record)
        XCTAssertEqual(out.map(\.1), [0, 512], "app 0 and mic 512 released; app 1024 waits for the mic")
        merger.flush(release: record)
        XCTAssertEqual(out.map(\.1), [0, 512, 1024])
    }

    func testAStalledRouteDoesNotHoldOthersPastMaxHold() {
        let a = SampleRoute.audio(.audioApp, .raw), m = SampleRoute.audio(.audioMic, .raw)
        var merger = TimelineMerger(routes: [a, m], maxHoldNs: 0)
        var count = 0
        merger.push(pcm(.audioApp, frame: 0), on: a) { _, _ in count += 1 }
        usleep(1000)
        merger.push(pcm(.audioApp, frame: 1024), on: a) { _, _ in count += 1 }
        XCTAssertGreaterThanOrEqual(count, 1, "the first sample waited past the hold and went out without the mic")
        usleep(1000)
        merger.push(pcm(.audioApp, frame: 2048), on: a) { _, _ in count += 1 }
        XCTAssertGreaterThanOrEqual(count, 2, "and so did the second")
    }
}

/// The dispatcher gives the handlers of a late-by-design video route (skip splicing)
/// a longer hold, so their audio still waits for video of the same time.
final class DispatcherHoldTests: XCTestCase {
    private func pcm(frame: Int64) -> SampleBuffer {
        SampleBuffer(type: .audioApp, presentationTime: MediaTime(value: frame, timescale: 48_000),
                     duration: MediaTime(value: 1024, timescale: 48_000), formatDescription: .audio(.standard),
                     payload: .pcm(PCMData(buffer: MediaBuffer(copying: [UInt8](repeating: 0, count: 8)), frameCount: 1, startFrame: frame)))
    }

    /// Pushes two audio samples 300 ms apart to a handler of video + audio whose video never
    /// comes, and returns how many audio samples it got within a second.
    private func audioDelivered(longerHolds: [SampleRoute: UInt64], video: SampleRoute) -> Int {
        let audio = SampleRoute.audio(.audioApp, .raw)
        let handler = CallLoggingHandler(input: HandlerInput(video: .none, appAudio: .raw))
        let runner = HandlerRunner(name: "file", handler: handler, routes: [video, audio], onEnded: { _, _ in })
        let dispatcher = Dispatcher(runners: [runner], maxHoldNs: 100_000_000, longerHolds: longerHolds)
        dispatcher.push(pcm(frame: 0), on: audio)
        usleep(300_000)
        dispatcher.push(pcm(frame: 1024), on: audio)
        let deadline = Date().addingTimeInterval(1)
        while handler.count(.audioApp) == 0 && Date() < deadline { usleep(10_000) }
        return handler.count(.audioApp)
    }

    func testASplicedVideoRouteHoldsItsHandlersAudioLonger() {
        let video = SampleRoute.video(.encoded(.fileDefault))
        XCTAssertGreaterThanOrEqual(audioDelivered(longerHolds: [:], video: video), 1,
                                    "past the usual hold, audio goes out without the stalled video")
        XCTAssertEqual(audioDelivered(longerHolds: [video: 10_000_000_000], video: video), 0,
                       "a spliced route's handlers keep waiting for its video")
    }
}
