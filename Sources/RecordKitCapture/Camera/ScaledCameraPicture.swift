import Glibc

/// One camera picture scaled to the size it is drawn at, in BGR0, with the camera's capture time.
/// Immutable: written once on the camera's thread, read on the capture thread.
package final class ScaledCameraPicture: Sendable {
    /// `width` × `height` pixels, B, G, R, X byte order (little-endian `UInt32` 0xXXRRGGBB).
    package let pixels: [UInt32]
    package let width: Int
    package let height: Int
    /// `CLOCK_MONOTONIC` nanoseconds at which the camera captured it.
    package let captureNs: UInt64
    /// Increases by one per picture of a camera: a new number is a new picture.
    package let serial: Int

    /// Wraps scaled pixels.
    package init(pixels: [UInt32], width: Int, height: Int, captureNs: UInt64, serial: Int) {
        self.pixels = pixels
        self.width = width
        self.height = height
        self.captureNs = captureNs
        self.serial = serial
    }

    /// Scales a camera picture (4 bytes per pixel, B G R X, or R G B X when `redFirst`) to
    /// `width`x`height` BGR0, bilinearly (2.8 fixed point). Written here rather than through
    /// libswscale because this module does not link FFmpeg and the corner picture is small:
    /// 160x120 of a 320x240 camera is 19,200 output pixels per camera frame.
    package static func scaled(_ source: UnsafeRawPointer, bytesPerRow: Int, width sw: Int, height sh: Int, redFirst: Bool,
                               to width: Int, _ height: Int, captureNs: UInt64, serial: Int) -> ScaledCameraPicture {
        var out = [UInt32](repeating: 0, count: width * height)
        if sw == width && sh == height {
            // At its own size (the camera track): a copy, red and blue swapped where needed.
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let row = (source + y * bytesPerRow).assumingMemoryBound(to: UInt32.self)
                    if !redFirst {
                        memcpy(dst.baseAddress! + y * width, row, width * 4)
                        continue
                    }
                    for x in 0..<width {
                        let p = row[x]
                        dst[y * width + x] = (p & 0x0000_FF00) | ((p & 0xFF) << 16) | ((p >> 16) & 0xFF)
                    }
                }
            }
            return ScaledCameraPicture(pixels: out, width: width, height: height, captureNs: captureNs, serial: serial)
        }
        // Source coordinates of each output column and row, in 1/256 pixels, of the pixel centres.
        let xs = (0..<width).map { x in max(0, min((sw - 1) * 256, ((2 * x + 1) * sw * 256 / (2 * width)) - 128)) }
        let ys = (0..<height).map { y in max(0, min((sh - 1) * 256, ((2 * y + 1) * sh * 256 / (2 * height)) - 128)) }
        out.withUnsafeMutableBufferPointer { dst in
            for (oy, fy) in ys.enumerated() {
                let y0 = fy >> 8, y1 = min(y0 + 1, sh - 1), wy = UInt32(fy & 255)
                let row0 = (source + y0 * bytesPerRow).assumingMemoryBound(to: UInt32.self)
                let row1 = (source + y1 * bytesPerRow).assumingMemoryBound(to: UInt32.self)
                for (ox, fx) in xs.enumerated() {
                    let x0 = fx >> 8, x1 = min(x0 + 1, sw - 1), wx = UInt32(fx & 255)
                    let (a, b, c, d) = (row0[x0], row0[x1], row1[x0], row1[x1])
                    var pixel: UInt32 = 0
                    for shift in stride(from: UInt32(0), through: 16, by: 8) {
                        let top = ((a >> shift) & 255) * (256 - wx) + ((b >> shift) & 255) * wx
                        let bottom = ((c >> shift) & 255) * (256 - wx) + ((d >> shift) & 255) * wx
                        pixel |= (((top * (256 - wy) + bottom * wy) >> 16) & 255) << shift
                    }
                    if redFirst { pixel = (pixel & 0x0000_FF00) | ((pixel & 0xFF) << 16) | ((pixel >> 16) & 0xFF) }
                    dst[oy * width + ox] = pixel
                }
            }
        }
        return ScaledCameraPicture(pixels: out, width: width, height: height, captureNs: captureNs, serial: serial)
    }
}
