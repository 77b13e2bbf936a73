import Foundation

/// Reads back the frame counter that `rk-testwindow --counter RATE` draws: 16 cells across the
/// top half of the window, most significant bit left, white for 1 and black for 0.
enum FrameCounter {
    static let cells = 16

    /// The counter in every decoded frame of `path`, in presentation order; `nil` for a frame
    /// whose cells are not clearly black or white (a blend, or no counter there).
    ///
    /// - Parameter band: the counter's band in the video's pixels (the top half of the window);
    ///   by default the top half of the whole frame (a recording of the window alone).
    static func values(_ path: String, band: PixelRect? = nil, videoStream: Int = 0, timeout: TimeInterval = 180) throws -> [Int?] {
        let rect: PixelRect
        if let band {
            rect = band
        } else {
            let probe = try FFprobe.probe(path, countFrames: false)
            guard probe.video.count > videoStream, let w = probe.video[videoStream].width, let h = probe.video[videoStream].height else {
                throw ProcessRunnerError(description: "\(path): no video stream \(videoStream) (\(probe))")
            }
            rect = PixelRect(x: 0, y: 0, width: w, height: h / 2)
        }
        // Each cell becomes 8x8 grey pixels; its centre is read.
        let (cw, ch) = (cells * 8, 8)
        let data = try ProcessRunner.output("ffmpeg", [
            "-nostdin", "-v", "error", "-i", path, "-map", "0:v:\(videoStream)", "-fps_mode", "passthrough",
            "-vf", "crop=\(rect.width):\(rect.height):\(rect.x):\(rect.y),scale=\(cw):\(ch):flags=area,format=gray",
            "-f", "rawvideo", "-pix_fmt", "gray", "-",
        ], timeout: timeout)
        let bytes = [UInt8](data)
        let size = cw * ch
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { start in
            var n = 0
            for i in 0..<cells {
                let v = bytes[start + 4 * cw + 8 * i + 4]
                if v > 60 && v < 195 { return nil }
                n = n << 1 | (v >= 128 ? 1 : 0)
            }
            return n
        }
    }

    /// Where `values` breaks the rule "each frame shows the previous frame's counter plus one
    /// or more" (a repeated frame, a step back, or an unreadable frame), as readable lines.
    static func irregularities(_ values: [Int?]) -> [String] {
        var problems: [String] = []
        var previous: Int?
        for (i, v) in values.enumerated() {
            guard let v else { problems.append("frame \(i): unreadable counter"); continue }
            if let p = previous, v <= p { problems.append("frame \(i): counter \(v) after \(p)") }
            previous = v
        }
        return problems
    }
}
