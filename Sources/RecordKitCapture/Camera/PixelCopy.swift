import Glibc
import RecordKit

/// Row-by-row copies of rectangles of 4-byte pixels between buffers that have their own row
/// strides (a screen frame's `bytesPerRow`, a pool buffer's `width` × 4, a corner's own rows).
enum PixelCopy {
    /// Copies a `width` × `height` pixel block whose top-left pixels are at `source` and
    /// `destination`, with rows `sourceBytesPerRow` and `destinationBytesPerRow` bytes apart.
    static func block(width: Int, height: Int, from source: UnsafeRawPointer, bytesPerRow sourceBytesPerRow: Int,
                      to destination: UnsafeMutableRawPointer, bytesPerRow destinationBytesPerRow: Int) {
        let rowBytes = width * 4
        if sourceBytesPerRow == rowBytes && destinationBytesPerRow == rowBytes {
            memcpy(destination, source, rowBytes * height)
            return
        }
        for row in 0..<height {
            memcpy(destination + row * destinationBytesPerRow, source + row * sourceBytesPerRow, rowBytes)
        }
    }

    /// Copies `rect` of one frame into the same place of another (frame pixel coordinates).
    static func rect(_ rect: PixelRect, from source: UnsafeRawPointer, bytesPerRow sourceBytesPerRow: Int,
                     to destination: UnsafeMutableRawPointer, bytesPerRow destinationBytesPerRow: Int) {
        block(width: rect.width, height: rect.height,
              from: source + rect.y * sourceBytesPerRow + rect.x * 4, bytesPerRow: sourceBytesPerRow,
              to: destination + rect.y * destinationBytesPerRow + rect.x * 4, bytesPerRow: destinationBytesPerRow)
    }
}
