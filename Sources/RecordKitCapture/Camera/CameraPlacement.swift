import RecordKit

/// Where the camera's picture goes in the screen picture (`--camera-position`, `--camera-size`):
/// a corner, and a width as a percentage of the screen picture's width (the camera's aspect
/// kept), inset from the corner by a margin of 1/40 of the picture's shorter side.
package struct CameraPlacement: Sendable, Equatable {
    /// The corner the camera sits in.
    package enum Corner: String, Sendable, CaseIterable {
        case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
    }

    /// The corner.
    package var corner: Corner
    /// Width of the camera's picture, in percent (1...100) of the screen picture's width.
    package var widthPercent: Int

    /// Bottom-right, 25 %.
    package init(corner: Corner = .bottomRight, widthPercent: Int = 25) {
        self.corner = corner
        self.widthPercent = widthPercent
    }

    /// Parses `--camera-position` (top-left, top-right, bottom-left, bottom-right) and
    /// `--camera-size` (`25%` or `25`, 1 to 100).
    /// - Throws: ``CaptureError`` `.badRegion` naming the option and the values it takes.
    package init(position: String, size: String) throws(CaptureError) {
        guard let corner = Corner(rawValue: position) else {
            throw CaptureError(.badRegion, "--camera-position must be one of \(Corner.allCases.map(\.rawValue).joined(separator: ", ")), got '\(position)'")
        }
        let digits = size.hasSuffix("%") ? String(size.dropLast()) : size
        guard let percent = Int(digits), (1...100).contains(percent) else {
            throw CaptureError(.badRegion, "--camera-size must be a percentage of the screen's width from 1% to 100%, got '\(size)'")
        }
        self.init(corner: corner, widthPercent: percent)
    }

    /// The camera's rectangle (even position and size, at least 2x2, inside the picture) in a
    /// `screenWidth`x`screenHeight` picture, for a camera of `cameraWidth`x`cameraHeight`.
    package func rect(screenWidth: Int, screenHeight: Int, cameraWidth: Int, cameraHeight: Int) -> PixelRect {
        let even = { (v: Int) in max(2, v & ~1) }
        var w = even(screenWidth * widthPercent / 100)
        var h = even(w * max(cameraHeight, 1) / max(cameraWidth, 1))
        if h > screenHeight {
            h = even(screenHeight)
            w = min(even(h * max(cameraWidth, 1) / max(cameraHeight, 1)), even(screenWidth))
        }
        var margin = (min(screenWidth, screenHeight) / 40) & ~1
        if w + 2 * margin > screenWidth || h + 2 * margin > screenHeight { margin = 0 }
        let left = corner == .topLeft || corner == .bottomLeft
        let top = corner == .topLeft || corner == .topRight
        let x = left ? margin : (screenWidth - w - margin) & ~1
        let y = top ? margin : (screenHeight - h - margin) & ~1
        return PixelRect(x: max(0, x), y: max(0, y), width: w, height: h)
    }
}
