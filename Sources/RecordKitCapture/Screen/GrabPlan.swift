import Glibc
import RecordKit

/// Where one tick grabs from the root window and how the grabbed pixels are arranged into the
/// fixed-size output frame.
///
/// The X server can only grab rectangles that lie inside the root window, and the image it
/// fills always has the output size. So the plan grabs an output-sized rectangle placed as close
/// as possible to the target, then moves the visible part of the target to where it belongs in
/// the output and paints the rest black. In the common case (target fully on screen and at least
/// as large as the output) the grab lands in place and nothing moves.
struct GrabPlan: Equatable {
    /// Top-left corner of the grabbed rectangle in root coordinates; its size is the output size.
    var grabX: Int
    /// See ``grabX``.
    var grabY: Int
    /// Size of the visible target content, in pixels.
    var contentWidth: Int
    /// See ``contentWidth``.
    var contentHeight: Int
    /// Where that content sits in the grabbed image.
    var sourceX: Int
    /// See ``sourceX``.
    var sourceY: Int
    /// Where that content goes in the output frame (the part of the target hidden off screen
    /// pushes it right or down).
    var destinationX: Int
    /// See ``destinationX``.
    var destinationY: Int

    /// The outcome of planning one tick.
    enum Outcome: Equatable {
        /// Grab according to the plan.
        case grab(GrabPlan)
        /// No part of the target is on screen: the frame is all black.
        case nothingVisible
        /// The screen became smaller than the output frame; nothing of that size can be grabbed.
        case screenTooSmall
    }

    /// Plans the grab of `target` (root coordinates, its current size) into an output frame of
    /// `outputWidth` × `outputHeight`, on a root window of `rootWidth` × `rootHeight`. A target
    /// larger than the output is cropped to its top-left part; a smaller one is padded.
    static func make(target: PixelRect, outputWidth: Int, outputHeight: Int,
                     rootWidth: Int, rootHeight: Int) -> Outcome {
        guard rootWidth >= outputWidth, rootHeight >= outputHeight else { return .screenTooSmall }
        // The target area that maps into the output, clipped to the screen.
        let left = max(target.x, 0)
        let top = max(target.y, 0)
        let right = min(target.x + min(target.width, outputWidth), rootWidth)
        let bottom = min(target.y + min(target.height, outputHeight), rootHeight)
        guard right > left, bottom > top else { return .nothingVisible }
        let grabX = min(left, rootWidth - outputWidth)
        let grabY = min(top, rootHeight - outputHeight)
        return .grab(GrabPlan(grabX: grabX, grabY: grabY,
                              contentWidth: right - left, contentHeight: bottom - top,
                              sourceX: left - grabX, sourceY: top - grabY,
                              destinationX: left - target.x, destinationY: top - target.y))
    }

    /// Whether the grabbed image already is the output frame.
    func isInPlace(outputWidth: Int, outputHeight: Int) -> Bool {
        sourceX == destinationX && sourceY == destinationY
            && contentWidth == outputWidth && contentHeight == outputHeight
    }

    /// The output rectangle that holds target content (where a cursor may be drawn).
    var contentRect: PixelRect {
        PixelRect(x: destinationX, y: destinationY, width: contentWidth, height: contentHeight)
    }

    /// Turns the grabbed image in `pixels` into the output frame, in place: moves the content
    /// from its source to its destination and blacks out everything else.
    func arrange(pixels: UnsafeMutableRawPointer, bytesPerRow: Int, width: Int, height: Int) {
        guard !isInPlace(outputWidth: width, outputHeight: height) else { return }
        let rowBytes = contentWidth * 4
        if sourceX != destinationX || sourceY != destinationY {
            // Rows move up or down as a block: walk in the order that never overwrites a source
            // row before it was read. memmove handles overlap within a row.
            let moveRow = { (row: Int) in
                _ = memmove(pixels + (destinationY + row) * bytesPerRow + destinationX * 4,
                            pixels + (sourceY + row) * bytesPerRow + sourceX * 4, rowBytes)
            }
            if destinationY > sourceY {
                for row in stride(from: contentHeight - 1, through: 0, by: -1) { moveRow(row) }
            } else {
                for row in 0..<contentHeight { moveRow(row) }
            }
        }
        GrabPlan.fillBlack(pixels: pixels, bytesPerRow: bytesPerRow, width: width, height: height,
                           except: contentRect)
    }

    /// Paints every pixel of the frame outside `keep` black (all four bytes zero).
    static func fillBlack(pixels: UnsafeMutableRawPointer, bytesPerRow: Int, width: Int, height: Int,
                          except keep: PixelRect) {
        for row in 0..<height {
            let line = pixels + row * bytesPerRow
            if row < keep.y || row >= keep.y + keep.height || keep.width <= 0 {
                memset(line, 0, width * 4)
                continue
            }
            if keep.x > 0 { memset(line, 0, keep.x * 4) }
            let end = keep.x + keep.width
            if end < width { memset(line + end * 4, 0, (width - end) * 4) }
        }
    }
}
