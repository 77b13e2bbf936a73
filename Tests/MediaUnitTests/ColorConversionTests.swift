import CColorConversion
import CFFmpeg
import XCTest

/// The direct BGR0 → yuv420p conversion (CColorConversion) that replaced libswscale for pictures
/// that keep their size: the same picture libswscale makes (within 1 per sample), the BT.709
/// limited-range values of pure colours, and the edges of the picture.
final class ColorConversionTests: XCTestCase {
    /// A yuv420p picture in three planes, tightly packed.
    private struct Planes {
        var y: [UInt8], u: [UInt8], v: [UInt8]
        init(width: Int, height: Int) {
            y = [UInt8](repeating: 0, count: width * height)
            u = [UInt8](repeating: 0, count: width * height / 4)
            v = [UInt8](repeating: 0, count: width * height / 4)
        }
    }

    private func direct(_ bgr0: [UInt8], width: Int, height: Int) -> Planes {
        var out = Planes(width: width, height: height)
        var scratch = [UInt8](repeating: 0, count: rk_yuv420p_scratch_bytes(Int32(width)) + 64)
        scratch.withUnsafeMutableBytes { scratchBytes in
            out.y.withUnsafeMutableBufferPointer { y in
                out.u.withUnsafeMutableBufferPointer { u in
                    out.v.withUnsafeMutableBufferPointer { v in
                        rk_bgr0_to_yuv420p_bt709(bgr0, width * 4, Int32(width), Int32(height), y.baseAddress, width,
                                                 u.baseAddress, width / 2, v.baseAddress, width / 2, scratchBytes.baseAddress)
                    }
                }
            }
        }
        return out
    }

    /// What FFmpeg's command line does (`scale=flags=bilinear:out_color_matrix=bt709:out_range=tv`).
    private func swscale(_ bgr0: [UInt8], width: Int, height: Int) throws -> Planes {
        var out = Planes(width: width, height: height)
        let context = try XCTUnwrap(sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_BGRA, Int32(width), Int32(height),
                                                   AV_PIX_FMT_YUV420P, SWS_BILINEAR, nil, nil, nil))
        defer { sws_freeContext(context) }
        let bt709 = sws_getCoefficients(SWS_CS_ITU709)
        XCTAssertGreaterThanOrEqual(sws_setColorspaceDetails(context, bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16), 0)
        bgr0.withUnsafeBufferPointer { source in
            out.y.withUnsafeMutableBufferPointer { y in
                out.u.withUnsafeMutableBufferPointer { u in
                    out.v.withUnsafeMutableBufferPointer { v in
                        let sources: [UnsafePointer<UInt8>?] = [source.baseAddress, nil, nil, nil]
                        let destinations: [UnsafeMutablePointer<UInt8>?] = [y.baseAddress, u.baseAddress, v.baseAddress, nil]
                        let rows = sws_scale(context, sources, [Int32(width * 4), 0, 0, 0], 0, Int32(height), destinations,
                                             [Int32(width), Int32(width / 2), Int32(width / 2), 0])
                        XCTAssertEqual(rows, Int32(height))
                    }
                }
            }
        }
        return out
    }

    /// Gradients, hard edges and noise: what a desktop has.
    private func picture(width: Int, height: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for row in 0..<height {
            for column in 0..<width {
                let i = (row * width + column) * 4
                let block = (column / 37 + row / 23) % 3
                pixels[i] = UInt8((column * 255) / max(1, width - 1))
                pixels[i + 1] = block == 0 ? 255 : UInt8(truncatingIfNeeded: row * 3 + column)
                pixels[i + 2] = block == 2 ? UInt8.random(in: 0...255, using: &generator) : UInt8((row * 255) / max(1, height - 1))
                pixels[i + 3] = UInt8.random(in: 0...255, using: &generator)  // X leaves it undefined: ignored
            }
        }
        return pixels
    }

    private func largestDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    func testTheDirectConversionIsLibswscalesPictureWithinOne() throws {
        // libswscale changes its vertical chroma filter for pictures under 8 rows (the pure-colour
        // test covers those sizes), so the comparison starts there.
        for (width, height) in [(642, 362), (1920, 1080), (64, 8), (18, 10)] {
            let pixels = picture(width: width, height: height)
            let ours = direct(pixels, width: width, height: height)
            let theirs = try swscale(pixels, width: width, height: height)
            XCTAssertLessThanOrEqual(largestDifference(ours.y, theirs.y), 1, "luma at \(width)x\(height)")
            XCTAssertLessThanOrEqual(largestDifference(ours.u, theirs.u), 1, "U at \(width)x\(height)")
            XCTAssertLessThanOrEqual(largestDifference(ours.v, theirs.v), 1, "V at \(width)x\(height)")
            let differing = zip(ours.u, theirs.u).filter { $0 != $1 }.count + zip(ours.y, theirs.y).filter { $0 != $1 }.count
            XCTAssertLessThan(Double(differing) / Double(ours.y.count + ours.u.count), 0.15, "mostly identical at \(width)x\(height)")
        }
    }

    func testPureColoursGetTheirBT709LimitedRangeValues() {
        // (B, G, R) -> (Y, U, V), ITU-R BT.709 with 8-bit limited range.
        let expected: [([UInt8], [UInt8])] = [
            ([255, 255, 255], [235, 128, 128]), ([0, 0, 0], [16, 128, 128]), ([0, 0, 255], [63, 102, 240]),
            ([0, 255, 0], [173, 42, 26]), ([255, 0, 0], [32, 240, 118]), ([128, 128, 128], [126, 128, 128]),
        ]
        for (bgr, yuv) in expected {
            let pixels = [UInt8]((0..<(8 * 4)).flatMap { _ in bgr + [0] })
            for (width, height) in [(4, 8), (2, 2)] {
                let out = direct(Array(pixels.prefix(width * height * 4)), width: width, height: height)
                XCTAssertEqual(Set(out.y), [yuv[0]], "Y of \(bgr) at \(width)x\(height)")
                XCTAssertEqual(Set(out.u), [yuv[1]], "U of \(bgr) at \(width)x\(height)")
                XCTAssertEqual(Set(out.v), [yuv[2]], "V of \(bgr) at \(width)x\(height)")
            }
        }
    }

    func testChromaFollowsTheRowsItCovers() {
        // Top half white, bottom half black: the chroma rows stay neutral and luma splits exactly.
        let width = 8, height = 8
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<(width * height / 2 * 4) { pixels[i] = 255 }
        let out = direct(pixels, width: width, height: height)
        XCTAssertEqual(Set(out.y.prefix(width * height / 2)), [235])
        XCTAssertEqual(Set(out.y.suffix(width * height / 2)), [16])
        XCTAssertEqual(Set(out.u + out.v), [128])
    }
}
