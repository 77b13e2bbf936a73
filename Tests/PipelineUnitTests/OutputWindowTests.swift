import XCTest
import RecordKit
@testable import RecordKitPipeline

/// ``OutputWindow``: where an output attached to a running capture starts, how its pause and
/// resume shift its time, and where its cut ends it.
final class OutputWindowTests: XCTestCase {
    private let format = FormatDescription.encoded(EncodedFormat(codec: .h264, timescale: 30, extradata: [1], width: 16, height: 16, frameRate: 30))

    /// A video packet of slot `slot` at 30 fps, decoded `delay` slots earlier (B-frames).
    private func video(_ slot: Int64, key: Bool = false, delay: Int64 = 2) -> SampleBuffer {
        SampleBuffer(type: .video, presentationTime: MediaTime(value: slot, timescale: 30), duration: MediaTime(value: 1, timescale: 30),
                     formatDescription: format,
                     payload: .packet(EncodedPacket(data: MediaBuffer(copying: [0]), decodeTime: MediaTime(value: slot - delay, timescale: 30),
                                                    isKeyFrame: key, encoderID: "t")))
    }

    private func audio(_ ms: Int64) -> SampleBuffer {
        SampleBuffer(type: .audioApp, presentationTime: .nanoseconds(ms * 1_000_000), duration: MediaTime(value: 1024, timescale: 48_000),
                     formatDescription: .audio(.standard),
                     payload: .pcm(PCMData(buffer: MediaBuffer(copying: [0, 0, 0, 0, 0, 0, 0, 0]), frameCount: 1, startFrame: 0)))
    }

    private let ns = 1_000_000_000 / 30

    /// Attached at slot 30: audio and video before the first key frame at or after it are not
    /// the output's; that key frame is its zero.
    func testAttachedOutputStartsAtItsFirstKeyFrame() {
        var w = OutputWindow.attached(at: Int64(30) * Int64(ns), hasVideo: true)
        XCTAssertNil(w.admit(video(20, key: true)), "a key frame before the attach")
        XCTAssertNil(w.admit(audio(1_050)), "audio before the first key frame")
        XCTAssertNil(w.admit(video(31)), "not a key frame")
        XCTAssertEqual(w.admit(video(32, key: true)), video(32).presentationTime.nanoseconds, "the key frame is zero")
        XCTAssertEqual(w.admit(audio(1_100)), video(32).presentationTime.nanoseconds)
        XCTAssertNil(w.admit(audio(1_000)), "audio before the start is not the output's")
    }

    /// Paused at slot 60, resumed at slot 90: nothing between; the stretch after the pause starts
    /// at the next key frame, its decode time where the delivered samples ended (never back).
    func testResumeContinuesWhereTheDeliveredSamplesEnded() throws {
        var w = OutputWindow.fromStart(hasVideo: true)
        for slot in Int64(0)..<60 { XCTAssertEqual(w.admit(video(slot, key: slot == 0)), 0) }
        w.pause(at: Int64(60) * Int64(ns))
        XCTAssertTrue(w.isPaused)
        XCTAssertNil(w.admit(video(61)))
        XCTAssertEqual(w.admit(video(59)), 0, "late samples from before the pause are still the output's")
        w.resume(at: Int64(90) * Int64(ns))
        XCTAssertNil(w.admit(video(80, key: true)), "a key frame before the resume")
        XCTAssertNil(w.admit(video(91)), "not a key frame")
        let offset = try XCTUnwrap(w.admit(video(92, key: true)))
        XCTAssertFalse(w.isPaused)
        // The key frame's decode time (slot 90) lands where the last delivered sample (slot 59,
        // decoded at 57, one frame long) ended: slot 58.
        XCTAssertEqual(video(92).shifted(byNanoseconds: offset).presentationTime.value, 60)
        XCTAssertEqual(offset, video(90).presentationTime.nanoseconds - video(58).presentationTime.nanoseconds)
    }

    /// A cut ends the output; each stream says when it passed it.
    func testCutEndsTheOutputAndEachStreamPassesIt() {
        var w = OutputWindow.fromStart(hasVideo: true)
        w.cut(at: Int64(30) * Int64(ns))
        XCTAssertEqual(w.admit(video(29)), 0)
        XCTAssertFalse(w.hasPassed([.video, .audioApp]))
        XCTAssertNil(w.admit(video(30)))
        XCTAssertFalse(w.hasPassed([.video, .audioApp]), "audio has not reached the cut")
        XCTAssertNil(w.admit(audio(1_001)))
        XCTAssertTrue(w.hasPassed([.video, .audioApp]))
    }
}
