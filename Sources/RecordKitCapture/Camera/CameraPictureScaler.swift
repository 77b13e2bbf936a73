import CColorConversion

/// Bilinear scaling of 4-byte camera pixels (B G R X, or R G B X) from one source size to one
/// output size, with 8-bit weights (1/256 pixel), written to BGR0.
///
/// Where each output column and row samples the source is computed once, in `init`, not per
/// picture. The scaling is separable: each source row that some output row needs is scaled
/// horizontally once (two source rows per output row at most, and consecutive output rows share
/// them), then output rows are blended vertically from the two.
/// The result is the exact fixed-point bilinear value, `(top · (256 - wy) + bottom · wy) >> 16`
/// where `top` and `bottom` are `left · (256 - wx) + right · wx`.
///
/// The loops are C (`rk_bgrx_scale_bilinear`, CColorConversion), vectorized with AVX-512 or
/// AVX2 where the CPU has them: 0.15 ms a 320x240 picture to 480x360, where the same scaling in
/// Swift took 0.43 ms on the camera's thread, the larger part of what the camera cost a
/// recording beside x264 (docs/BENCHMARKS.md, "Camera picture-in-picture"). Not libswscale:
/// this module does not link FFmpeg, and swscale's bilinear is not this formula. A value type
/// with its own scratch rows: use one scaler from one thread (the camera's).
struct CameraPictureScaler {
    /// The source size this scaler was made for.
    let sourceWidth: Int
    let sourceHeight: Int
    /// The output size.
    let width: Int
    let height: Int

    /// Per output column: left source column, right source column, weight of the right one (0-255).
    private let left: [Int32]
    private let right: [Int32]
    private let columnWeights: [UInt16]
    /// Per output row: top source row, bottom source row, weight of the bottom one (0-255).
    private let top: [Int32]
    private let bottom: [Int32]
    private let rowWeights: [UInt16]
    /// The C loops' rows (`rk_bilinear_scratch_bytes`).
    private var scratch: [UInt64]

    /// A scaler from `sourceWidth`x`sourceHeight` to `width`x`height` (all at least 1).
    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = width
        self.height = height
        // Source positions of the output pixels' centres, in 1/256 pixels, clamped to the picture.
        func position(_ i: Int, _ count: Int, _ sourceCount: Int) -> (Int32, Int32, UInt16) {
            let p = max(0, min((sourceCount - 1) * 256, (2 * i + 1) * sourceCount * 256 / (2 * count) - 128))
            return (Int32(p >> 8), Int32(min((p >> 8) + 1, sourceCount - 1)), UInt16(p & 255))
        }
        let columns = (0..<width).map { position($0, width, sourceWidth) }
        let rows = (0..<height).map { position($0, height, sourceHeight) }
        left = columns.map(\.0)
        right = columns.map(\.1)
        columnWeights = columns.map(\.2)
        top = rows.map(\.0)
        bottom = rows.map(\.1)
        rowWeights = rows.map(\.2)
        scratch = [UInt64](repeating: 0, count: (rk_bilinear_scratch_bytes(Int32(sourceWidth), Int32(width)) + 7) / 8)
    }

    /// Whether this scaler scales `sourceWidth`x`sourceHeight` pictures to `width`x`height`.
    func scales(fromWidth sourceWidth: Int, _ sourceHeight: Int, toWidth width: Int, _ height: Int) -> Bool {
        (sourceWidth, sourceHeight, width, height) == (self.sourceWidth, self.sourceHeight, self.width, self.height)
    }

    /// Scales one picture (`sourceWidth`x`sourceHeight`, rows `bytesPerRow` apart, R and B
    /// swapped when `redFirst`) into `output` (`width` × `height` pixels, BGR0).
    mutating func scale(_ source: UnsafeRawPointer, bytesPerRow: Int, redFirst: Bool, into output: UnsafeMutablePointer<UInt32>) {
        scratch.withUnsafeMutableBytes { scratch in
            rk_bgrx_scale_bilinear(source.assumingMemoryBound(to: UInt8.self), bytesPerRow, Int32(sourceWidth), redFirst ? 1 : 0,
                                   left, right, columnWeights, Int32(width), top, bottom, rowWeights, Int32(height),
                                   UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt8.self), scratch.baseAddress)
        }
    }
}
