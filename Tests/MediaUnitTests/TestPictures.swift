import RecordKit
import RecordKitMedia
import XCTest

/// Test pictures for the encoder tests: BGR0 (320x240 unless told), converted by `encoder`.
enum TestPictures {
    /// A picture that differs from every other index: a gradient shifted by `index` and a square.
    static func pattern(_ index: Int, encoder: VideoEncoder, width: Int = 320, height: Int = 240) throws -> ConvertedPicture {
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

/// An encoder's samples, kept in order and written to stream 0 of a muxer (the first write
/// error is kept and thrown by ``finish()``).
final class MuxedSamples {
    private let muxer: Muxer
    private(set) var samples: [SampleBuffer] = []
    private var failure: MediaError?

    init(url: String, container: String = "mp4", format: EncodedFormat) throws {
        muxer = try Muxer(url: url, container: container, streams: [format])
    }

    /// The encoder's emit callback.
    func emit(_ sample: SampleBuffer) {
        samples.append(sample)
        do throws(MediaError) { try muxer.write(sample, toStream: 0) } catch { failure = failure ?? error }
    }

    /// Throws the first write error, else finishes the file.
    func finish() throws {
        if let failure { throw failure }
        try muxer.finish()
    }

    /// Asserts decode times increase from sample to sample and never pass presentation times.
    func assertDecodeOrder(file: StaticString = #filePath, line: UInt = #line) {
        var lastDts = Int64.min
        for s in samples {
            guard case .packet(let p) = s.payload else { return XCTFail("not a packet", file: file, line: line) }
            XCTAssertGreaterThan(p.decodeTime.value, lastDts, "decode times increase: \(samples.map(\.presentationTime.value))", file: file, line: line)
            XCTAssertLessThanOrEqual(p.decodeTime.value, s.presentationTime.value, "decoded before shown", file: file, line: line)
            lastDts = p.decodeTime.value
        }
    }
}
