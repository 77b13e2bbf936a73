/// Bilinear scaling of 4-byte camera pixels (B G R X, or R G B X) from one source size to one
/// output size, with 8-bit weights (1/256 pixel), written to BGR0.
///
/// Where each output column and row samples the source is computed once, in `init`, not per
/// picture. The scaling is separable: each source row that some output row needs is scaled
/// horizontally once (two source rows per output row at most, and consecutive output rows share
/// them), then output rows are blended vertically from the two. In the horizontal pass each
/// 32-bit word carries two 8-bit channels in 16-bit lanes (B and R; G and X), so one
/// multiplication weighs two channels.
/// The result is the exact fixed-point bilinear value, `(top · (256 - wy) + bottom · wy) >> 16`
/// where `top` and `bottom` are `left · (256 - wx) + right · wx`.
///
/// Written here rather than through libswscale because this module does not link FFmpeg and
/// the corner is small (480x360 is 172,800 output pixels per camera picture). A value type with
/// its own row buffers: use one scaler from one thread (the camera's).
struct CameraPictureScaler {
    /// The source size this scaler was made for.
    let sourceWidth: Int
    let sourceHeight: Int
    /// The output size.
    let width: Int
    let height: Int

    /// Per output column: left source column, right source column, weight of the right one (0-255).
    private let columns: [(left: Int, right: Int, weight: UInt32)]
    /// Per output row: top source row, bottom source row, weight of the bottom one (0-255).
    private let rows: [(top: Int, bottom: Int, weight: UInt32)]
    /// Two horizontally scaled source rows, two words per output pixel (B|R and G|X, each lane
    /// the channel times 256), and which source row each holds (-1: none yet).
    private var lines: [[UInt32]]
    private var lineRows = [-1, -1]

    /// A scaler from `sourceWidth`x`sourceHeight` to `width`x`height` (all at least 1).
    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = width
        self.height = height
        // Source positions of the output pixels' centres, in 1/256 pixels, clamped to the picture.
        func position(_ i: Int, _ count: Int, _ sourceCount: Int) -> (Int, Int, Int) {
            let p = max(0, min((sourceCount - 1) * 256, (2 * i + 1) * sourceCount * 256 / (2 * count) - 128))
            return (p >> 8, min((p >> 8) + 1, sourceCount - 1), p & 255)
        }
        columns = (0..<width).map { x in
            let (left, right, weight) = position(x, width, sourceWidth)
            return (left, right, UInt32(weight))
        }
        rows = (0..<height).map { y in
            let (top, bottom, weight) = position(y, height, sourceHeight)
            return (top, bottom, UInt32(weight))
        }
        lines = [[UInt32](repeating: 0, count: 2 * width), [UInt32](repeating: 0, count: 2 * width)]
    }

    /// Whether this scaler scales `sourceWidth`x`sourceHeight` pictures to `width`x`height`.
    func scales(fromWidth sourceWidth: Int, _ sourceHeight: Int, toWidth width: Int, _ height: Int) -> Bool {
        (sourceWidth, sourceHeight, width, height) == (self.sourceWidth, self.sourceHeight, self.width, self.height)
    }

    /// Scales one picture (`sourceWidth`x`sourceHeight`, rows `bytesPerRow` apart, R and B
    /// swapped when `redFirst`) into `output` (`width` × `height` pixels, BGR0).
    mutating func scale(_ source: UnsafeRawPointer, bytesPerRow: Int, redFirst: Bool, into output: UnsafeMutablePointer<UInt32>) {
        lineRows = [-1, -1]
        for y in 0..<height {
            let row = rows[y]
            let top = line(for: row.top, source, bytesPerRow)
            let bottom = line(for: row.bottom, source, bytesPerRow)
            let weight = row.weight
            lines[top].withUnsafeBufferPointer { a in
                lines[bottom].withUnsafeBufferPointer { b in
                    Self.blend(a.baseAddress!, b.baseAddress!, weight: weight, redFirst: redFirst,
                               into: output + y * width, count: width)
                }
            }
        }
    }

    /// The index in ``lines`` of source row `sourceRow` scaled horizontally, scaling it now
    /// into the line that is not the other one needed when it is not there yet.
    private mutating func line(for sourceRow: Int, _ source: UnsafeRawPointer, _ bytesPerRow: Int) -> Int {
        if lineRows[0] == sourceRow { return 0 }
        if lineRows[1] == sourceRow { return 1 }
        // Rows only go down: the line holding the lower-numbered row is no longer needed.
        let index = lineRows[0] < lineRows[1] ? 0 : 1
        lineRows[index] = sourceRow
        let pixels = (source + sourceRow * bytesPerRow).assumingMemoryBound(to: UInt32.self)
        columns.withUnsafeBufferPointer { columns in
            lines[index].withUnsafeMutableBufferPointer { line in
                for x in 0..<columns.count {
                    let c = columns[x]
                    let (a, b) = (pixels[c.left], pixels[c.right])
                    let (wa, wb) = (256 - c.weight, c.weight)
                    line[2 * x] = (a & 0x00FF_00FF) &* wa &+ (b & 0x00FF_00FF) &* wb
                    line[2 * x + 1] = ((a >> 8) & 0x00FF_00FF) &* wa &+ ((b >> 8) & 0x00FF_00FF) &* wb
                }
            }
        }
        return index
    }

    /// Blends two horizontally scaled lines into `count` output pixels, bottom weighted `weight`/256.
    private static func blend(_ top: UnsafePointer<UInt32>, _ bottom: UnsafePointer<UInt32>, weight: UInt32, redFirst: Bool,
                              into output: UnsafeMutablePointer<UInt32>, count: Int) {
        let (wt, wb) = (256 - weight, weight)
        // Each lane × 256 + lane × 256 fits 32 bits: blend the two lanes of a word apart.
        @inline(__always) func mix(_ t: UInt32, _ b: UInt32) -> (low: UInt32, high: UInt32) {
            (((t & 0xFFFF) &* wt &+ (b & 0xFFFF) &* wb) >> 16, ((t >> 16) &* wt &+ (b >> 16) &* wb) >> 16)
        }
        if redFirst {
            for x in 0..<count {
                let (r, b) = mix(top[2 * x], bottom[2 * x]), g = mix(top[2 * x + 1], bottom[2 * x + 1]).low
                output[x] = (r << 16) | (g << 8) | b
            }
        } else {
            for x in 0..<count {
                let (b, r) = mix(top[2 * x], bottom[2 * x]), g = mix(top[2 * x + 1], bottom[2 * x + 1]).low
                output[x] = (r << 16) | (g << 8) | b
            }
        }
    }
}
