import RecordKit
@testable import ReplayBufferExtension
import XCTest

/// The replay buffer's bookkeeping on synthetic packets (its real-recording behaviour is in
/// Tests/EndToEndTests/ReplayBufferTests.swift): whole GOPs leave from the front by time and by
/// bytes, a clip starts on a key frame at most one GOP before the requested start, its audio
/// starts within one audio frame of its video, and it ends before a frame the encoder still held.
final class ReplayRingTests: XCTestCase {
    private static let fps: Int64 = 30
    private static let period = 1_000_000_000 / fps
    private static let video = FormatDescription.encoded(EncodedFormat(codec: .h264, timescale: 30, extradata: []))
    private static let audio = FormatDescription.encoded(EncodedFormat(codec: .aac, timescale: 48000, extradata: []))

    /// Video frame `index` (pts = index periods; a key frame every `gop`), `bytes` long.
    private static func frame(_ index: Int64, gop: Int64 = 60, bytes: Int = 1000, dts: Int64? = nil) -> SampleBuffer {
        SampleBuffer(type: .video, presentationTime: MediaTime(value: index, timescale: 30), duration: MediaTime(value: 1, timescale: 30),
                     formatDescription: video,
                     payload: .packet(EncodedPacket(data: MediaBuffer(copying: [UInt8](repeating: 1, count: bytes)),
                                                    decodeTime: MediaTime(value: dts ?? index, timescale: 30),
                                                    isKeyFrame: index % gop == 0, encoderID: "v")))
    }

    /// AAC frame `index` of 1024 samples at 48 kHz on `type`.
    private static func aac(_ index: Int64, _ type: SampleBufferType = .audioApp) -> SampleBuffer {
        let pts = MediaTime(value: index * 1024, timescale: 48000)
        return SampleBuffer(type: type, presentationTime: pts, duration: MediaTime(value: 1024, timescale: 48000), formatDescription: audio,
                            payload: .packet(EncodedPacket(data: MediaBuffer(copying: [UInt8](repeating: 2, count: 300)),
                                                           decodeTime: pts, isKeyFrame: true, encoderID: "a")))
    }

    /// `seconds` of 30 fps video and one AAC track, interleaved in timeline order.
    private static func feed(_ ring: inout ReplayRing, seconds: Int64, gop: Int64 = 60, bytes: Int = 1000) {
        var nextAudio: Int64 = 0
        for i in 0..<(seconds * fps) {
            let t = i * period
            while nextAudio * 1024 * 1_000_000_000 / 48000 <= t {
                ring.append(aac(nextAudio))
                nextAudio += 1
            }
            ring.append(frame(i, gop: gop, bytes: bytes))
        }
    }

    func testWholeGOPsLeaveTheFrontOnceTheRestCoversTheDuration() {
        var ring = ReplayRing(maxDurationNs: 10_000_000_000, maxBytes: .max)
        Self.feed(&ring, seconds: 25)
        let held = ring.snapshot().filter { $0.type == .video }
        // 25 s of frames end at 25.0 s; the last GOP start that still leaves 10 s is 14 s.
        XCTAssertEqual(held.first?.presentationTime.seconds ?? -1, 14, accuracy: 0.001, "starts on a key frame")
        if case .packet(let p)? = held.first?.payload { XCTAssertTrue(p.isKeyFrame) }
        XCTAssertGreaterThanOrEqual(ring.seconds, 10)
        XCTAssertLessThanOrEqual(ring.seconds, 12, "at most one GOP more than asked")
        XCTAssertEqual(ring.bytes, ring.snapshot().reduce(0) { sum, s in
            if case .packet(let p) = s.payload { return sum + p.data.count }
            return sum
        }, "bytes counts exactly what is held")
    }

    func testHeldPacketsAreCopiesInTheBuffersOwnArena() {
        var ring = ReplayRing(maxDurationNs: 10_000_000_000, maxBytes: 64 << 20)
        let original = Self.frame(0)
        ring.append(original)
        Self.feed(&ring, seconds: 25)
        XCTAssertGreaterThan(ring.arenaBytes, ring.bytes, "every held packet is in the arena (64-byte rounded)")
        XCTAssertLessThan(ring.arenaBytes, ring.bytes * 2)
        do {
            let held = ring.snapshot()
            if case .packet(let p)? = held.first?.payload, case .packet(let o) = original.payload {
                XCTAssertEqual(Array(p.data.bytes), Array(o.data.bytes))
            }
            ring.removeAll()
            XCTAssertGreaterThan(ring.arenaBytes, 0, "a snapshot (a save in progress) keeps its packets")
        }
        XCTAssertEqual(ring.arenaBytes, 0, "dropped packets leave the arena once no snapshot holds them")
    }

    func testTheByteBoundDropsGOPsEvenWithinTheDuration() {
        var ring = ReplayRing(maxDurationNs: 60_000_000_000, maxBytes: 200_000)
        Self.feed(&ring, seconds: 20, bytes: 1000)  // 30 kB per second of video
        XCTAssertLessThanOrEqual(ring.bytes, 200_000)
        XCTAssertLessThan(ring.seconds, 8, "the bytes, not the 60 s, bound the buffer")
        XCTAssertGreaterThanOrEqual(ring.seconds, 2, "at least one GOP stays")
    }

    func testNothingIsKeptBeforeTheFirstKeyFrame() {
        var ring = ReplayRing(maxDurationNs: 10_000_000_000, maxBytes: .max)
        ring.append(Self.aac(0))
        ring.append(Self.frame(1))
        XCTAssertTrue(ring.snapshot().isEmpty)
        ring.append(Self.frame(60))
        XCTAssertEqual(ring.snapshot().count, 1)
    }

    func testAClipStartsOnAKeyFrameAtMostOneGOPEarlyWithAudioAlignedAndTimesFromZero() throws {
        var ring = ReplayRing(maxDurationNs: 20_000_000_000, maxBytes: .max)
        Self.feed(&ring, seconds: 25)
        let clip = try XCTUnwrap(ReplayClip.make(from: ring.snapshot(), seconds: 5))
        // The newest frame (24.967 s) has no successor yet, so the clip ends before it, at
        // 24.967 s; 5 s asked: the key frame at or before 19.967 s is 18.0 s (GOP 2 s).
        XCTAssertEqual(clip.startSeconds, 18, accuracy: 0.001)
        XCTAssertEqual(clip.seconds, 7 - 1.0 / 30, accuracy: 0.001)
        let video = clip.samples.filter { $0.type == .video }
        XCTAssertEqual(video.count, 209)
        XCTAssertEqual(video.first?.presentationTime.seconds ?? -1, 0, accuracy: 0.0001, "timestamps from zero")
        let audio = clip.samples.filter { $0.type == .audioApp }
        let firstAudio = try XCTUnwrap(audio.first?.presentationTime.seconds)
        XCTAssertGreaterThanOrEqual(firstAudio, 0)
        XCTAssertLessThan(firstAudio, 1024.0 / 48000, "audio within one AAC frame of the video")

        let odd = try XCTUnwrap(ReplayClip.make(from: ring.snapshot(), seconds: 4.9))
        XCTAssertEqual(odd.startSeconds, 20, accuracy: 0.001, "20.067 s asked: the key frame before it, one GOP at most")
    }

    func testAClipEndsBeforeAFrameTheEncoderStillHeld() throws {
        var ring = ReplayRing(maxDurationNs: 20_000_000_000, maxBytes: .max)
        // Decode order I0 P3 B1 B2 P6 B4 (B5 still in the encoder): frames 0...4 are complete.
        for (pts, dts) in [(0, -2), (3, -1), (1, 0), (2, 1), (6, 2), (4, 3)] as [(Int64, Int64)] {
            ring.append(Self.frame(pts, dts: dts))
        }
        let clip = try XCTUnwrap(ReplayClip.make(from: ring.snapshot(), seconds: nil))
        XCTAssertEqual(clip.samples.map { $0.presentationTime.value }, [0, 3, 1, 2], "the run up to the last frame with no hole")
        XCTAssertEqual(clip.seconds, 4.0 / 30, accuracy: 0.0001)
    }

    func testMarkersInsideTheClipBecomeItsChapters() throws {
        var ring = ReplayRing(maxDurationNs: 20_000_000_000, maxBytes: .max)
        Self.feed(&ring, seconds: 10)
        let marks = [BroadcastAnnotation(title: "before", time: .nanoseconds(1_000_000_000)),
                     BroadcastAnnotation(title: "inside", time: .nanoseconds(7_500_000_000)),
                     BroadcastAnnotation(title: "", time: .nanoseconds(9_000_000_000))]
        let clip = try XCTUnwrap(ReplayClip.make(from: ring.snapshot(), seconds: 4, annotations: marks))
        XCTAssertEqual(clip.startSeconds, 4, accuracy: 0.001, "the end is 9.967 s: 5.967 s asked, key frame 4 s")
        XCTAssertEqual(clip.chapters.map(\.title), ["inside", "Chapter 2"])
        XCTAssertEqual(clip.chapters.first?.start.seconds ?? -1, 3.5, accuracy: 0.001)
        XCTAssertEqual(clip.chapters.last?.end.seconds ?? -1, 6 - 1.0 / 30, accuracy: 0.001)
    }
}
