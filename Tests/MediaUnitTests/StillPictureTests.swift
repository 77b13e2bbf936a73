import Foundation
@testable import RecordKit
@testable import RecordKitMedia
import MediaTestSupport
import XCTest

/// A still screen at variable frame rate codes its picture once (``VideoEncoder/closeOnStill``)
/// and shows it again without the encoder (``VideoEncoder/show``): key frames keep coming by
/// time, no two key frames follow each other, decode times increase, the file decodes without
/// an error, every still slot shows the still picture, and a change afterwards starts a fresh
/// encoder at a key frame.
final class StillPictureTests: XCTestCase {
    private var scratch: MediaScratchDirectory!

    override func setUpWithError() throws { scratch = try MediaScratchDirectory() }
    override func tearDown() { if ProcessInfo.processInfo.environment["KEEP_SCRATCH"] == nil { scratch?.remove() } }

    func testAStillPictureIsShownAgainAsKeyFrameAndReferenceAndTheFileDecodes() throws {
        let encoder = try VideoEncoder(settings: .fileDefault, inputWidth: 320, inputHeight: 240, frameRate: 30, id: "still-test")
        XCTAssertTrue(encoder.keepsStillPictures)
        let out = scratch.path + "/still.mp4"
        let muxed = try MuxedSamples(url: out, format: encoder.format)
        let emit = muxed.emit
        // Moving content at slots 0...9, then the screen stays as picture 9: closed on at slot
        // 30 (what the stage does a second after the last change), shown as the stage does.
        for slot in 0..<10 { try encoder.encode(try TestPictures.pattern(slot, encoder: encoder), pts: Int64(slot), emit: emit) }
        let stillPicture = try TestPictures.pattern(9, encoder: encoder)
        var still = try XCTUnwrap(try encoder.closeOnStill(stillPicture, pts: 30, emit: emit), "x264 keeps still pictures")
        XCTAssertTrue(encoder.show(&still, keyFrame: false, at: 45, emit: emit), "the reference at the next slot")
        XCTAssertFalse(encoder.isKeyFrameDue(at: 89))
        XCTAssertTrue(encoder.isKeyFrameDue(at: 90), "key frames by time count from the closing key frame")
        XCTAssertTrue(encoder.show(&still, keyFrame: true, at: 90, emit: emit))
        XCTAssertFalse(encoder.show(&still, keyFrame: false, at: 90, emit: emit), "never twice at one slot")
        XCTAssertFalse(encoder.isKeyFrameDue(at: 149))
        XCTAssertTrue(encoder.show(&still, keyFrame: false, at: 105, emit: emit))
        XCTAssertTrue(encoder.show(&still, keyFrame: true, at: 150, emit: emit))
        XCTAssertTrue(encoder.show(&still, keyFrame: false, at: 165, emit: emit))
        // The screen changes: a fresh encoder, starting at a key frame.
        for slot in 200..<205 { try encoder.encode(try TestPictures.pattern(slot, encoder: encoder), pts: Int64(slot), emit: emit) }
        XCTAssertFalse(encoder.show(&still, keyFrame: true, at: 210, emit: emit), "no showing while a codec is open")
        try encoder.finish(emit: emit)
        try muxed.finish()
        let samples = muxed.samples

        let slots = samples.map(\.presentationTime.value)
        XCTAssertEqual(slots.sorted(), Array(0..<10) + [30, 45, 90, 105, 150, 165] + Array(200..<205), "every picture once")
        var lastDts = Int64.min
        var lastWasKey = false
        var keys: [Int64] = []
        for s in samples {
            guard case .packet(let p) = s.payload else { return XCTFail("not a packet") }
            XCTAssertGreaterThan(p.decodeTime.value, lastDts, "decode times increase: \(slots)")
            XCTAssertLessThanOrEqual(p.decodeTime.value, s.presentationTime.value, "decoded before shown")
            XCTAssertFalse(p.isKeyFrame && lastWasKey, "no two key frames in a row (at \(s.presentationTime.value))")
            lastDts = p.decodeTime.value
            lastWasKey = p.isKeyFrame
            if p.isKeyFrame { keys.append(s.presentationTime.value) }
        }
        XCTAssertEqual(keys, [0, 30, 90, 150, 200], "key frames: the first, the closing one, by time, and the fresh encoder's")

        // Decoded: no error, and every still slot shows the still picture (the key frame's or
        // the reference's reconstruction of it: at most two distinct pictures, and close).
        let (code, _, stderr) = try MediaProbe.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", out, "-f", "null", "-"])
        XCTAssertEqual(code, 0)
        XCTAssertEqual(stderr, "", "the file decodes without errors")
        let frames = try decodedFrames(out)
        XCTAssertEqual(frames.count, slots.count, "every packet decodes to a picture")
        let stillFrames = frames.filter { [30, 45, 90, 105, 150, 165].contains($0.slot) }.map(\.gray)
        XCTAssertEqual(stillFrames.count, 6)
        XCTAssertLessThanOrEqual(Set(stillFrames).count, 2, "the key frame's picture and the reference's")
        let moving = try XCTUnwrap(frames.first { $0.slot == 9 }?.gray)
        for frame in stillFrames {
            XCTAssertLessThan(meanAbsoluteDifference(frame, moving), 2.0, "a still slot shows picture 9")
        }
        let other = try XCTUnwrap(frames.first { $0.slot == 5 }?.gray)
        XCTAssertGreaterThan(meanAbsoluteDifference(other, moving), 5.0, "pictures differ enough to tell them apart")
    }

    /// The screen changes right after a still picture was shown (the next slot): the fresh
    /// x264's B-frames need decode times before their presentation times, which the shown
    /// picture leaves them (decoded up to the reorder delay early); the muxer takes the stream
    /// (it refused it with EINVAL when the shown picture's decode time was its slot).
    func testAChangeRightAfterAShownPictureLeavesTheFreshEncoderItsDecodeTimes() throws {
        let encoder = try VideoEncoder(settings: .fileDefault, inputWidth: 320, inputHeight: 240, frameRate: 30, id: "still-change")
        let out = scratch.path + "/change.mp4"
        let muxed = try MuxedSamples(url: out, format: encoder.format)
        let emit = muxed.emit
        try encoder.encode(try TestPictures.pattern(0, encoder: encoder), pts: 0, emit: emit)
        var still = try XCTUnwrap(try encoder.closeOnStill(try TestPictures.pattern(0, encoder: encoder), pts: 30, emit: emit))
        XCTAssertTrue(encoder.show(&still, keyFrame: false, at: 75, emit: emit))
        XCTAssertTrue(encoder.show(&still, keyFrame: true, at: 90, emit: emit))
        // Moving content from the very next slot: x264 reorders with B-frames.
        for slot in 91..<111 { try encoder.encode(try TestPictures.pattern(slot, encoder: encoder), pts: Int64(slot), emit: emit) }
        try encoder.finish(emit: emit)
        try muxed.finish()
        let samples = muxed.samples
        muxed.assertDecodeOrder()
        XCTAssertTrue(samples.contains { $0.presentationTime.value > 91 && $0.presentationTime.value < 110 && { if case .packet(let p) = $0.payload { return !p.isKeyFrame } else { return false } }($0) })
        XCTAssertEqual(samples.count, 1 + 1 + 2 + 20, "every picture once")
        let (code, _, stderr) = try MediaProbe.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", out, "-f", "null", "-"])
        XCTAssertEqual(code, 0)
        XCTAssertEqual(stderr, "", "the file decodes without errors")
    }

    func testAnEncoderOtherThanX264RestartsInstead() throws {
        var settings = VideoEncoderSettings.fileDefault
        settings.codec = .hevc
        settings.preset = "ultrafast"
        let encoder = try VideoEncoder(settings: settings, inputWidth: 320, inputHeight: 240, frameRate: 30, id: "still-hevc")
        XCTAssertFalse(encoder.keepsStillPictures)
        var samples: [SampleBuffer] = []
        try encoder.encode(try TestPictures.pattern(0, encoder: encoder), pts: 0) { samples.append($0) }
        XCTAssertNil(try encoder.closeOnStill(try TestPictures.pattern(0, encoder: encoder), pts: 30) { samples.append($0) })
        try encoder.encode(try TestPictures.pattern(0, encoder: encoder), pts: 45) { samples.append($0) }
        try encoder.finish { samples.append($0) }
        XCTAssertEqual(samples.map(\.presentationTime.value).sorted(), [0, 30, 45], "the key frame emitted, then a fresh encoder")
    }

    /// The decoded pictures' luma, 320x240, with their slots.
    private func decodedFrames(_ path: String) throws -> [(slot: Int64, gray: [UInt8])] {
        let (_, times, _) = try MediaProbe.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts",
                                                                   "-of", "csv=p=0", path])
        // A key frame's line carries a trailing field (its side data): the first field is the time.
        let pts = String(decoding: times, as: UTF8.self).split(whereSeparator: \.isNewline)
            .compactMap { $0.split(separator: ",").first.flatMap { Int64($0) } }
        let (code, data, _) = try MediaProbe.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-vsync", "passthrough",
                                                                    "-pix_fmt", "gray", "-f", "rawvideo", "-"])
        XCTAssertEqual(code, 0)
        let size = 320 * 240
        let count = data.count / size
        XCTAssertEqual(count, pts.count)
        let timescale = Int64(15360) / 30  // the MP4 track's timescale, per slot
        return (0..<min(count, pts.count)).map { i in (pts[i] / timescale, Array(data[(i * size)..<((i + 1) * size)])) }
    }

    private func meanAbsoluteDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
    }
}
