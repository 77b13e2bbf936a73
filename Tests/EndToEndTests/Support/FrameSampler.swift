import Foundation

/// An RGB colour with floating-point channels (0...255).
struct RGB: Sendable, Equatable, CustomStringConvertible {
    var r: Double, g: Double, b: Double

    init(r: Double, g: Double, b: Double) { (self.r, self.g, self.b) = (r, g, b) }
    init(hex: UInt32) {
        self.init(r: Double((hex >> 16) & 0xFF), g: Double((hex >> 8) & 0xFF), b: Double(hex & 0xFF))
    }

    /// The largest per-channel difference.
    func distance(to o: RGB) -> Double { max(abs(r - o.r), abs(g - o.g), abs(b - o.b)) }

    var description: String { String(format: "rgb(%.1f, %.1f, %.1f)", r, g, b) }
    var hex: String {
        String(format: "%02X%02X%02X", Int(r.rounded()), Int(g.rounded()), Int(b.rounded()))
    }
}

/// A rectangle in pixels.
struct PixelRect: Sendable, CustomStringConvertible {
    var x: Int, y: Int, width: Int, height: Int
    /// The middle of `self`, inset by `fraction` of its size on every side.
    func inset(_ fraction: Double) -> PixelRect {
        let dx = Int(Double(width) * fraction), dy = Int(Double(height) * fraction)
        return PixelRect(x: x + dx, y: y + dy, width: max(1, width - 2 * dx), height: max(1, height - 2 * dy))
    }
    var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// One decoded frame in rgb24.
struct RGBFrame: Sendable {
    let width: Int
    let height: Int
    let pixels: [UInt8]  // width * height * 3

    func pixel(_ x: Int, _ y: Int) -> RGB {
        let o = (y * width + x) * 3
        return RGB(r: Double(pixels[o]), g: Double(pixels[o + 1]), b: Double(pixels[o + 2]))
    }

    private func clamp(_ r: PixelRect) -> PixelRect {
        let x0 = max(0, min(width - 1, r.x)), y0 = max(0, min(height - 1, r.y))
        let x1 = max(x0 + 1, min(width, r.x + r.width)), y1 = max(y0 + 1, min(height, r.y + r.height))
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Mean colour of `rect` (clamped to the frame).
    func mean(_ rect: PixelRect) -> RGB {
        let c = clamp(rect)
        var sr = 0.0, sg = 0.0, sb = 0.0
        for y in c.y ..< c.y + c.height {
            var o = (y * width + c.x) * 3
            for _ in 0 ..< c.width {
                sr += Double(pixels[o]); sg += Double(pixels[o + 1]); sb += Double(pixels[o + 2])
                o += 3
            }
        }
        let n = Double(c.width * c.height)
        return RGB(r: sr / n, g: sg / n, b: sb / n)
    }

    /// Fraction (0...1) of the pixels of `rect` within `tolerance` (per channel) of `colour`.
    func fraction(of colour: RGB, within tolerance: Double, in rect: PixelRect) -> Double {
        let c = clamp(rect)
        var hits = 0
        for y in c.y ..< c.y + c.height {
            for x in c.x ..< c.x + c.width where pixel(x, y).distance(to: colour) <= tolerance { hits += 1 }
        }
        return Double(hits) / Double(c.width * c.height)
    }

    var fullRect: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }
}

enum FrameSampler {
    /// Decodes the video frame shown at time `t` (seconds) of `path` into rgb24.
    static func frame(_ path: String, at t: Double, videoStream: Int = 0, timeout: TimeInterval = 60) throws -> RGBFrame {
        let probe = try FFprobe.probe(path, countFrames: false)
        guard probe.video.count > videoStream, let w = probe.video[videoStream].width,
              let h = probe.video[videoStream].height else {
            throw ProcessRunnerError(description: "\(path): no video stream \(videoStream) (\(probe))")
        }
        let data = try ProcessRunner.output("ffmpeg", [
            "-nostdin", "-v", "error", "-ss", String(format: "%.3f", t), "-i", path,
            "-map", "0:v:\(videoStream)", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
        ], timeout: timeout)
        guard data.count == w * h * 3 else {
            throw ProcessRunnerError(description: "\(path): frame at \(t) s decoded to \(data.count) bytes, want \(w * h * 3) (\(w)x\(h))")
        }
        return RGBFrame(width: w, height: h, pixels: [UInt8](data))
    }

    /// Grabs `rect` of the X display right now (x11grab, one frame).
    static func grabScreen(display: String, _ rect: PixelRect, drawMouse: Bool = false, timeout: TimeInterval = 30) throws -> RGBFrame {
        let data = try ProcessRunner.output("ffmpeg", [
            "-nostdin", "-v", "error", "-f", "x11grab", "-draw_mouse", drawMouse ? "1" : "0",
            "-video_size", "\(rect.width)x\(rect.height)", "-i", "\(display)+\(rect.x),\(rect.y)",
            "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
        ], timeout: timeout)
        guard data.count == rect.width * rect.height * 3 else {
            throw ProcessRunnerError(description: "x11grab of \(rect) gave \(data.count) bytes")
        }
        return RGBFrame(width: rect.width, height: rect.height, pixels: [UInt8](data))
    }
}

extension FrameSampler {
    /// The mean luma (0...255) of `rect` in every decoded frame of `path`, in frame order.
    static func meanLuma(_ path: String, _ rect: PixelRect, timeout: TimeInterval = 120) throws -> [Double] {
        let data = try ProcessRunner.output("ffmpeg", [
            "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0",
            "-vf", "crop=\(rect.width):\(rect.height):\(rect.x):\(rect.y),format=gray",
            "-f", "rawvideo", "-pix_fmt", "gray", "-",
        ], timeout: timeout)
        let bytes = [UInt8](data)
        let size = rect.width * rect.height
        guard size > 0 else { return [] }
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { start in
            Double(bytes[start..<(start + size)].reduce(0) { $0 + Int($1) }) / Double(size)
        }
    }
}
