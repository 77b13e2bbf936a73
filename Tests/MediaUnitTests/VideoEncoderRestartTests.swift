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
        let muxer = try Muxer(url: out, container: "mp4", streams: [encoder.format])
        var samples: [SampleBuffer] = []
        var failure: MediaError?
        let emit: (SampleBuffer) -> Void = { sample in
            samples.append(sample)
            do throws(MediaError) { try muxer.write(sample, toStream: 0) } catch { failure = error }
        }
        let slots: [Int64] = [0, 15, 30, 45, 60, 75, 90, 105, 120]
        for (i, slot) in slots.enumerated() {
            if slot == 60 { try encoder.restart(emit: emit) }
            let picture = try pattern(slot == 60 ? 3 : i, encoder: encoder)  // slot 60 repeats slot 45's picture
            try encoder.encode(picture, pts: slot, emit: emit)
        }
        try encoder.finish(emit: emit)
        if let failure { throw failure }
        try muxer.finish()

        XCTAssertEqual(samples.map(\.presentationTime.value).sorted(), slots, "every picture once, at its slot")
        var lastDts = Int64.min
        for s in samples {
            guard case .packet(let p) = s.payload else { return XCTFail("not a packet") }
            XCTAssertGreaterThan(p.decodeTime.value, lastDts, "decode times increase: \(samples.map { ($0.presentationTime.value) })")
            XCTAssertLessThanOrEqual(p.decodeTime.value, s.presentationTime.value, "decoded before shown")
            lastDts = p.decodeTime.value
        }
        let (code, _, stderr) = try MediaProbe.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", out, "-f", "null", "-"])
        XCTAssertEqual(code, 0)
        XCTAssertEqual(stderr, "", "the file decodes without errors")
        let (_, data, _) = try MediaProbe.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,flags",
                                                                  "-of", "csv=p=0", out])
        let rows = String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",") }
        XCTAssertEqual(rows.count, slots.count, "\(rows)")
        let keys = rows.filter { $0.count >= 2 && $0[1].hasPrefix("K") }.compactMap { Int($0[0]) }.map { $0 * 30 / 15360 }.sorted()
        XCTAssertEqual(keys, [0, 60, 120], "key frames: the first picture, the restart's, and by time 2 s later: \(rows)")
    }

    /// A picture that differs from every other index: a gradient shifted by `index` and a square.
    private func pattern(_ index: Int, encoder: VideoEncoder) throws -> ConvertedPicture {
        let width = 320, height = 240
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let sx = (index * 37) % (width - 64), sy = (index * 23) % (height - 64)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 4
                let inSquare = x >= sx && x < sx + 64 && y >= sy && y < sy + 64
                pixels[o] = inSquare ? 255 : UInt8((x + index * 5) & 0xFF)
                pixels[o + 1] = inSquare ? 40 : UInt8((y + index * 3) & 0xFF)
                pixels[o + 2] = inSquare ? 200 : UInt8((x + y) / 4 & 0xFF)
            }
        }
        return try pixels.withUnsafeBytes { raw throws(MediaError) -> ConvertedPicture in
            try encoder.convert(bgr0: raw.baseAddress!, bytesPerRow: width * 4, width: width, height: height)
        }
    }
}
