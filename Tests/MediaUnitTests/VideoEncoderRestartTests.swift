import Foundation
@testable import RecordKit
@testable import RecordKitMedia
import MediaTestSupport
import XCTest

/// A file's encode at variable frame rate (for smaller files): x264 with B-frames and look-ahead gets
/// pictures half a second apart on a still screen and is drained and opened again there
/// (``VideoEncoder/restart(emit:)``); the stream must stay one valid stream.
final class VideoEncoderRestartTests: XCTestCase {
    private var scratch: MediaScratchDirectory!

    override func setUpWithError() throws { scratch = try MediaScratchDirectory() }
    override func tearDown() { scratch?.remove() }

    /// Pictures at slots 15 apart (a still screen's repeats at 30 fps), a restart in the middle:
    /// the fresh encoder's first decode times, computed by x264 from its own first pictures'
    /// spacing, would reach back before the old encoder's last packets; they are moved past
    /// them, so decode times increase, every packet decodes before it is shown, and the file
    /// holds every picture at its time.
    func testDecodeTimesIncreaseAcrossARestartAtSparseTimestamps() throws {
        let encoder = try VideoEncoder(settings: .fileDefault, inputWidth: 320, inputHeight: 240, frameRate: 30, id: "restart-test")
        XCTAssertEqual(encoder.reorderDelay, 2, "the file's encode keeps B-frames with a pyramid")
        let out = scratch.path + "/restart.mp4"
        let slots: [Int64] = [0, 15, 30, 45, 60, 75, 90, 105, 120]
        // Slot 60 repeats slot 45's picture.
        try encodeWithARestart(encoder, slots: slots, restartAt: 60, pictureIndex: { $0 == 4 ? 3 : $0 }, into: out, container: "mp4")
        let (_, data, _) = try MediaProbe.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,flags",
                                                                  "-of", "csv=p=0", out])
        let rows = String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",") }
        XCTAssertEqual(rows.count, slots.count, "\(rows)")
        let keys = rows.filter { $0.count >= 2 && $0[1].hasPrefix("K") }.compactMap { Int($0[0]) }.map { $0 * 30 / 15360 }.sorted()
        XCTAssertEqual(keys, [0, 60, 120], "key frames: the first picture, the restart's, and by time 2 s later: \(rows)")
    }

    /// HEVC, restarted on a still screen and stopped two pictures later: x265, flushed before
    /// it had its reorder delay's pictures, gives decode times from memory it never filled (far
    /// past the pictures' own times; they overflowed the dispatcher's arithmetic and took the
    /// process down at the stop). Every packet still decodes before it is shown, in increasing
    /// order, and the file decodes without errors.
    func testARestartedHEVCEncoderFlushedAfterTwoPicturesKeepsItsDecodeTimesValid() throws {
        var settings = VideoEncoderSettings.fileDefault
        settings.codec = .hevc
        settings.preset = "ultrafast"
        settings.rateControl = .crf(35)
        // x265 leaves the delay it subtracts unset until its third picture, so what the decode
        // times become depends on the heap: fresh allocations are filled with 0xB2 here (glibc's
        // perturb byte 0x4D), which gives the very times the recording had (0x4D4D4D4D4D4D4D7B
        // for slot 45). A test process's fresh pages are zero, and zeros pass unnoticed.
        // glibc's mallopt(M_PERTURB = -6, byte): not in Swift's Glibc module, so looked up.
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(try XCTUnwrap(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt")), to: MallOpt.self)
        _ = mallopt(-6, 0x4D)
        defer { _ = mallopt(-6, 0) }
        let encoder = try VideoEncoder(settings: settings, inputWidth: 320, inputHeight: 240, frameRate: 30, id: "hevc-restart")
        let out = scratch.path + "/restart.mkv"
        try encodeWithARestart(encoder, slots: [0, 15, 30, 45, 60], restartAt: 45, pictureIndex: { $0 }, into: out, container: "matroska")
    }

    /// A stop right after a restart, before the next picture: SVT-AV1 waits forever to end a
    /// stream that had no picture (the recording never stopped). The restart leaves the fresh
    /// encoder to the next picture, so the stop finds nothing to drain; a picture after a
    /// restart still opens a fresh encoder whose first picture is a key frame.
    func testAStopRightAfterARestartEndsForEveryCodec() throws {
        for codec in [Codec.av1, .hevc, .h264] {
            var settings = VideoEncoderSettings.fileDefault
            settings.codec = codec
            settings.preset = "ultrafast"
            let encoder = try VideoEncoder(settings: settings, inputWidth: 320, inputHeight: 240, frameRate: 30, id: "stop-\(codec)")
            let pictures = try (0..<3).map { try TestPictures.pattern($0, encoder: encoder) }
            let outcome = OnAThread.run(timeout: 60) { () -> Result<(slots: [Int64], keyAfterRestart: Bool), MediaError> in
                do throws(MediaError) {
                    var samples: [SampleBuffer] = []
                    try encoder.encode(pictures[0], pts: 0) { samples.append($0) }
                    try encoder.encode(pictures[1], pts: 15, keyFrame: true) { samples.append($0) }
                    try encoder.restart { samples.append($0) }
                    let beforeSecond = samples.count
                    try encoder.encode(pictures[2], pts: 30) { samples.append($0) }
                    try encoder.restart { samples.append($0) }
                    try encoder.finish { samples.append($0) }
                    let keyAfterRestart = samples[beforeSecond...].contains {
                        if case .packet(let p) = $0.payload { return p.isKeyFrame && $0.presentationTime.value == 30 } else { return false }
                    }
                    return .success((samples.map(\.presentationTime.value), keyAfterRestart))
                } catch {
                    return .failure(error)
                }
            }
            let result = try XCTUnwrap(outcome, "\(codec): the stop after a restart ended within 60 s")
            guard case .success(let (slots, keyAfterRestart)) = result else {
                return XCTFail("\(codec): \(result)")
            }
            XCTAssertEqual(slots.sorted(), [0, 15, 30], "\(codec): every picture once")
            XCTAssertTrue(keyAfterRestart, "\(codec): the picture after the restart is a key frame")
        }
    }

    /// A still screen at variable frame rate through the file's path: pictures half a
    /// second apart, the last one repeated into the slot that holds the end of a 2 s recording
    /// (slot 59, as ``VideoEncodeStage`` does at stop), x264 with B-frames, the file handler's
    /// fragmented MP4, finalized in place. The video lasts exactly 2 s: the picture shown last
    /// ends at its own packet's end, not at its decode-time step to the B-frames decoded after
    /// it (half a second here: the old index made this 2.5 s).
    func testAStillScreensLastPictureEndsAtTheRecordingsEnd() throws {
        let encoder = try VideoEncoder(settings: .fileDefault, inputWidth: 320, inputHeight: 240, frameRate: 30, id: "end-test")
        let out = scratch.path + "/still.mp4"
        let muxer = try Muxer(url: out, container: "mp4", streams: [encoder.format],
                              options: ["movflags": "+frag_keyframe+delay_moov+default_base_moof", "frag_duration": "1000000"])
        var samples: [SampleBuffer] = []
        var failure: MediaError?
        let emit: (SampleBuffer) -> Void = { sample in
            samples.append(sample)
            do throws(MediaError) { try muxer.write(sample, toStream: 0) } catch { failure = error }
        }
        let slots: [Int64] = [0, 15, 30, 45, 59]
        for (i, slot) in slots.enumerated() {
            try encoder.encode(try TestPictures.pattern(min(i, 3), encoder: encoder), pts: slot, emit: emit)
        }
        try encoder.finish(emit: emit)
        if let failure { throw failure }
        try muxer.finish()
        // The picture shown last is not the last decoded (B-frames), so its decode-time step
        // is not its display time: the case the index got wrong.
        let lastDecoded = try XCTUnwrap(samples.last?.presentationTime.value)
        XCTAssertNotEqual(lastDecoded, 59, "x264 reordered the last pictures: \(samples.map(\.presentationTime.value))")

        try MP4IndexAppender.finalize(out, chapters: [])
        let (_, data, _) = try MediaProbe.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v",
                                                                  "-show_entries", "stream=duration:format=duration", "-of", "csv=p=0", out])
        let values = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Double($0) }
        XCTAssertEqual(values.count, 2, "stream and format duration: \(values)")
        for value in values { XCTAssertEqual(value, 2.0, accuracy: 0.001, "the video ends at slot 60 (2 s): \(values)") }
    }

    /// Encodes a picture at each of `slots` (``TestPictures/pattern(_:encoder:)`` number `pictureIndex(i)`
    /// for the i-th), restarting `encoder` before slot `restartAt`, drains it into a file at
    /// `out`, and checks: every picture once at its slot, decode times increasing and never
    /// past the presentation time, and the file decoding without errors.
    private func encodeWithARestart(_ encoder: VideoEncoder, slots: [Int64], restartAt: Int64, pictureIndex: (Int) -> Int,
                                    into out: String, container: String) throws {
        let muxed = try MuxedSamples(url: out, container: container, format: encoder.format)
        let emit = muxed.emit
        for (i, slot) in slots.enumerated() {
            if slot == restartAt { try encoder.restart(emit: emit) }
            try encoder.encode(try TestPictures.pattern(pictureIndex(i), encoder: encoder), pts: slot, emit: emit)
        }
        try encoder.finish(emit: emit)
        try muxed.finish()

        XCTAssertEqual(muxed.samples.map(\.presentationTime.value).sorted(), slots, "every picture once, at its slot")
        muxed.assertDecodeOrder()
        let (code, _, stderr) = try MediaProbe.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", out, "-f", "null", "-"])
        XCTAssertEqual(code, 0)
        XCTAssertEqual(stderr, "", "the file decodes without errors")
    }
}
