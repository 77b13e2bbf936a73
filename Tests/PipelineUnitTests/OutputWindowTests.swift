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

    /// A raw PCM block of 1024 frames of the capture's track, numbered by the capture from its start.
    private func pcm(block: Int64) -> SampleBuffer {
        SampleBuffer(type: .audioApp, presentationTime: MediaTime(value: block * 1024, timescale: 48_000),
                     duration: MediaTime(value: 1024, timescale: 48_000), formatDescription: .audio(.standard),
                     payload: .pcm(PCMData(buffer: MediaBuffer(copying: [UInt8](repeating: 0, count: 8192)), frameCount: 1024,
                                           startFrame: block * 1024)))
    }

    /// The frame number and presentation time (ns) `w` gives `sample`, or nil when it is not the output's.
    private func own(_ w: inout OutputWindow, _ sample: SampleBuffer) -> (frame: Int64, ns: Int64)? {
        guard let placed = w.placement(of: sample)?.apply(to: sample), case .pcm(let p) = placed.payload else { return nil }
        return (p.startFrame, placed.presentationTime.nanoseconds)
    }

    /// Raw PCM on an attached output's own count: its first block is frame 0 (not the
    /// capture's number), blocks stay contiguous, and after a pause of its own the count goes
    /// on where it stopped while the time moves with the resumed stretch. An output that
    /// started with the capture keeps the capture's numbers.
    func testAttachedOutputNumbersPCMFromItsOwnStart() throws {
        // Attached at 2 s: blocks from 2.005 s (block 94) on; the key frame at slot 61 is zero.
        var w = OutputWindow.attached(at: 2_000_000_000, hasVideo: true)
        XCTAssertNil(own(&w, pcm(block: 94)), "audio before the first key frame")
        XCTAssertNotNil(w.admit(video(61, key: true)))
        let first = try XCTUnwrap(own(&w, pcm(block: 96)))
        XCTAssertEqual(first.frame, 0, "the output's first block is its frame 0, not the capture's 98304")
        XCTAssertEqual(Double(first.ns), Double(96 * 1024 * 1_000_000_000 / 48_000 - video(61).presentationTime.nanoseconds),
                       accuracy: 21_000, "its time is on the output's axis (the key frame at zero), within a frame of 48 kHz")
        XCTAssertEqual(own(&w, pcm(block: 97))?.frame, 1024, "contiguous")
        XCTAssertEqual(own(&w, pcm(block: 98))?.frame, 2048)
        w.pause(at: video(80).presentationTime.nanoseconds)
        XCTAssertNil(own(&w, pcm(block: 130)), "paused (block 130 is after slot 80)")
        w.resume(at: video(150).presentationTime.nanoseconds)
        XCTAssertNotNil(w.admit(video(151, key: true)))
        let resumed = try XCTUnwrap(own(&w, pcm(block: 237)))
        XCTAssertEqual(resumed.frame, 3072, "the count goes on where it stopped: the paused span is excluded")
        XCTAssertEqual(own(&w, pcm(block: 238))?.frame, 4096)
        XCTAssertGreaterThanOrEqual(resumed.ns, 3072 * 1_000_000_000 / 48_000, "never before what was delivered")

        var fromStart = OutputWindow.fromStart(hasVideo: true)
        XCTAssertEqual(own(&fromStart, pcm(block: 0))?.frame, 0)
        XCTAssertEqual(own(&fromStart, pcm(block: 1))?.frame, 1024, "an output from the start keeps the capture's numbers")
        XCTAssertEqual(Double(own(&fromStart, pcm(block: 2))?.ns ?? 0), 2048 * 1e9 / 48_000, accuracy: 1, "and its times")
    }

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
