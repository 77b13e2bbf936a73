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
