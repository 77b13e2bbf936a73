import Foundation
import RecordKitMedia
import XCTest

/// ``MJPEGDecoder``: JPEGs as an MJPEG camera sends them (made by ffmpeg's own mjpeg encoder,
/// yuvj420p and yuvj422p: full range) decoded to BGR0 with their colours; a corrupt or cut
/// JPEG is refused with a reason, never a crash, and the next good one decodes again.
final class MJPEGDecoderTests: XCTestCase {
    /// ffmpeg's SMPTE bars (75 %: 191 per lit channel) as one JPEG of `size`, in `pixelFormat`.
    private func jpeg(_ size: String, _ pixelFormat: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "smptebars=size=\(size)", "-frames:v", "1",
                             "-pix_fmt", pixelFormat, "-q:v", "2", "-f", "mjpeg", "-"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { if process.isRunning { process.terminate() } }  // bounded
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "ffmpeg made the JPEG")
        return data
    }

    /// Decodes `data`: the picture's size and the B, G, R of the pixel at (x, y) for each of `points`.
    private func decode(_ decoder: MJPEGDecoder, _ data: Data, at points: [(Int, Int)]) -> (String?, Int, Int, [[Int]]) {
        var size = (0, 0)
        var colours: [[Int]] = []
        let failure = data.withUnsafeBytes { bytes in
            decoder.decode(bytes) { pixels, bytesPerRow, width, height in
                size = (width, height)
                for (x, y) in points {
                    let p = pixels.advanced(by: y * bytesPerRow + x * 4).assumingMemoryBound(to: UInt8.self)
                    colours.append([Int(p[0]), Int(p[1]), Int(p[2])])
                }
            }
        }
        return (failure, size.0, size.1, colours)
    }

    /// The top bars of ffmpeg's smptebars, full range in the JPEG: white, yellow, cyan, green,
    /// magenta, red, blue at 75 % (191). Read as limited range they would come out ~205: the
    /// range is the one thing this tells apart.
    func testBarsDecodeInTheirFullRangeColours() throws {
        let decoder = try MJPEGDecoder()
        // B, G, R of each bar.
        let bars = [[191, 191, 191], [0, 191, 191], [191, 191, 0], [0, 191, 0], [191, 0, 191], [0, 0, 191], [191, 0, 0]]
        for format in ["yuvj420p", "yuvj422p"] {
            let data = try jpeg("640x480", format)
            let points = (0..<7).map { (Int((Double($0) + 0.5) * 640 / 7), 100) }
            let (failure, width, height, colours) = decode(decoder, data, at: points)
            XCTAssertNil(failure, format)
            XCTAssertEqual(width, 640, format)
            XCTAssertEqual(height, 480, format)
            for (i, (got, want)) in zip(colours, bars).enumerated() {
                XCTAssertTrue(zip(got, want).allSatisfy { abs($0 - $1) <= 8 }, "\(format) bar \(i): \(got), want \(want)")
            }
        }
    }

    /// Garbage, a JPEG cut in half and an empty buffer are each refused with a reason; the
    /// decoder keeps working: a good JPEG of another size decodes afterwards, also with zero
    /// padding or an older picture's bytes after it.
    func testACorruptJPEGIsRefusedAndTheNextDecodes() throws {
        let decoder = try MJPEGDecoder()
        let good = try jpeg("320x240", "yuvj420p")
        let garbage = Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
        for (name, data) in [("garbage", garbage), ("cut", good.prefix(good.count / 2)), ("empty", Data())] {
            let (failure, width, _, _) = decode(decoder, Data(data), at: [])
            XCTAssertNotNil(failure, "\(name) is refused")
            XCTAssertEqual(width, 0, "\(name): nothing delivered")
        }
        // The picture followed by zero padding (UVC cameras) or by the rest of an older,
        // longer picture (a reused buffer): decoded, what follows ignored.
        for (name, tail) in [("padding", Data(count: 3000)), ("an older picture", garbage)] {
            let (failure, width, _, _) = decode(decoder, good + tail, at: [])
            XCTAssertNil(failure, "followed by \(name)")
            XCTAssertEqual(width, 320, "followed by \(name)")
        }
        let (failure, width, height, colours) = decode(decoder, good, at: [(22, 40)])
        XCTAssertNil(failure)
        XCTAssertEqual(width, 320)
        XCTAssertEqual(height, 240)
        XCTAssertTrue(colours.first.map { $0.allSatisfy { abs($0 - 191) <= 8 } } ?? false, "the white bar: \(colours)")
    }
}
