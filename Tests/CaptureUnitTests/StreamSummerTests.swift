@testable import RecordKitCapture
import XCTest

/// ``StreamSummer``: an application's several streams become one, on their capture times.
final class StreamSummerTests: XCTestCase {
    private final class Collected {
        var left: [Float] = []
        var starts: [UInt64] = []
        var frames = 0
    }

    private func summer() -> (StreamSummer, Collected) {
        let c = Collected()
        let s = StreamSummer { samples, frames, time in
            c.starts.append(time)
            c.frames += frames
            for i in 0..<frames { c.left.append(samples[i * 2]) }
        }
        return (s, c)
    }

    private func chunk(_ s: StreamSummer, _ stream: UInt32, _ value: Float, frames: Int, atNs: UInt64, nowNs: UInt64) {
        let samples = [Float](repeating: value, count: frames * 2)
        samples.withUnsafeBufferPointer { s.deliver(stream: stream, samples: $0, frameCount: frames, captureTimeNs: atNs, nowNs: nowNs) }
    }

    private let ms: UInt64 = 1_000_000
    private let base: UInt64 = 5_000_000_000

    func testOneStreamPassesThroughAtOnceWithItsTimes() {
        let (s, c) = summer()
        for k in 0..<10 { chunk(s, 7, 0.5, frames: 480, atNs: base + UInt64(k) * 10 * ms, nowNs: base + UInt64(k) * 10 * ms) }
        XCTAssertEqual(c.frames, 4800, "each chunk goes out as it comes")
        XCTAssertEqual(c.starts.first, base)
        XCTAssertEqual(c.starts.last, base + 90 * ms)
        XCTAssertTrue(c.left.allSatisfy { $0 == 0.5 })
    }

    func testTwoStreamsAreAddedUpWhateverTheirJitterAndOrder() {
        let (s, c) = summer()
        // Opened together; stream 1 in 10 ms chunks, stream 2 in 20 ms chunks with up to 2 ms of
        // jitter, arriving alternately ahead and behind.
        s.expectStream(1, nowNs: base)
        s.expectStream(2, nowNs: base)
        var now = base
        for k in 0..<50 {
            let stream2 = {
                let j = UInt64(k / 2)
                self.chunk(s, 2, 0.5, frames: 960, atNs: self.base + j * 20 * self.ms + UInt64(k % 3) * self.ms, nowNs: now)
            }
            if k % 4 == 0 { stream2() }
            chunk(s, 1, 0.25, frames: 480, atNs: base + UInt64(k) * 10 * ms, nowNs: now)
            if k % 4 == 3 { stream2() }
            now += 10 * ms
        }
        XCTAssertEqual(c.frames, 24_000, "both streams reached frame 24000")
        XCTAssertTrue(c.left.allSatisfy { $0 == 0.75 }, "every frame is the sum of both: \(Set(c.left))")
    }

    func testAnIdleStreamStopsHoldingTheOtherBackAndItsLateSamplesAreDropped() {
        let (s, c) = summer()
        s.expectStream(1, nowNs: base)
        s.expectStream(2, nowNs: base)
        chunk(s, 1, 0.25, frames: 480, atNs: base, nowNs: base)
        XCTAssertEqual(c.frames, 0, "an expected stream holds the output until its first chunk")
        chunk(s, 2, 0.5, frames: 480, atNs: base, nowNs: base)
        XCTAssertEqual(c.frames, 480)
        // Stream 2 goes quiet; stream 1 goes on: held back until stream 2 has been idle 150 ms.
        for k in 1...30 { chunk(s, 1, 0.25, frames: 480, atNs: base + UInt64(k) * 10 * ms, nowNs: base + UInt64(k) * 10 * ms) }
        XCTAssertEqual(c.frames, 31 * 480, "after 150 ms of silence stream 2 no longer holds stream 1")
        XCTAssertTrue(c.left[480...].allSatisfy { $0 == 0.25 })
        // Stream 2's late chunk for frames already handed on is dropped, not added twice.
        chunk(s, 2, 0.5, frames: 480, atNs: base + 10 * ms, nowNs: base + 310 * ms)
        XCTAssertEqual(c.frames, 31 * 480)
    }

    func testAnEndedStreamNoLongerHoldsTheOthers() {
        let (s, c) = summer()
        s.expectStream(1, nowNs: base)
        s.expectStream(2, nowNs: base)
        chunk(s, 1, 0.25, frames: 480, atNs: base, nowNs: base)
        chunk(s, 2, 0.5, frames: 240, atNs: base, nowNs: base)
        XCTAssertEqual(c.frames, 240)
        s.streamEnded(2, nowNs: base + ms)
        XCTAssertEqual(c.frames, 480, "stream 1's frames go out once stream 2 has ended")
        XCTAssertEqual(Array(c.left[0..<240]), [Float](repeating: 0.75, count: 240))
        XCTAssertEqual(Array(c.left[240..<480]), [Float](repeating: 0.25, count: 240))
        XCTAssertEqual(s.streamCount, 1)
    }
}
