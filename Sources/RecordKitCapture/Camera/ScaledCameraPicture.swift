import Synchronization

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
    /// `width`x`height` BGR0 with a scaler made for this call (``CameraPictureScaler``).
    package static func scaled(_ source: UnsafeRawPointer, bytesPerRow: Int, width sw: Int, height sh: Int, redFirst: Bool,
                               to width: Int, _ height: Int, captureNs: UInt64, serial: Int) -> ScaledCameraPicture {
        var scaler: CameraPictureScaler?
        return scaled(source, bytesPerRow: bytesPerRow, width: sw, height: sh, redFirst: redFirst, to: width, height,
                      captureNs: captureNs, serial: serial, scaler: &scaler)
    }

    /// Scales a camera picture as above, with `scaler` when it was made for these sizes (it is
    /// replaced by one that is when not): a camera's pictures share one scaler, so where each
    /// output pixel samples the source is worked out once, not per picture. `reusing`: the
    /// pixels of a picture nobody holds any more (``takePixelsIfUnshared(_:)``), written over when
    /// they have the size, so that a camera's pictures do not each take fresh memory.
    static func scaled(_ source: UnsafeRawPointer, bytesPerRow: Int, width sw: Int, height sh: Int, redFirst: Bool,
                       to width: Int, _ height: Int, captureNs: UInt64, serial: Int,
                       scaler: inout CameraPictureScaler?, reusing spare: consuming [UInt32]? = nil) -> ScaledCameraPicture {
        var pixels = (consume spare) ?? []
        if pixels.count == width * height {
            pixels.withUnsafeMutableBufferPointer { out in
                scale(source, bytesPerRow: bytesPerRow, width: sw, height: sh, redFirst: redFirst, to: width, height,
                      scaler: &scaler, into: out)
            }
        } else {
            pixels = [UInt32](unsafeUninitializedCapacity: width * height) { out, count in
                count = width * height
                scale(source, bytesPerRow: bytesPerRow, width: sw, height: sh, redFirst: redFirst, to: width, height,
                      scaler: &scaler, into: out)
            }
        }
        return ScaledCameraPicture(pixels: pixels, width: width, height: height, captureNs: captureNs, serial: serial)
    }

    /// Takes `picture` (leaving nil) and returns its pixels for
    /// ``scaled(_:bytesPerRow:width:height:redFirst:to:_:captureNs:serial:scaler:reusing:)`` to
    /// write over, when this reference is the only one left (nothing else can see the picture
    /// any more); otherwise (or nil) leaves it and returns nil.
    static func takePixelsIfUnshared(_ picture: inout ScaledCameraPicture?) -> [UInt32]? {
        guard isKnownUniquelyReferenced(&picture) else { return nil }
        // What the thread that dropped the last other reference read happens before the rewrite.
        atomicMemoryFence(ordering: .acquiring)
        let pixels = picture?.pixels
        picture = nil
        return pixels
    }

    /// Writes the scaled picture into `out` (`width` × `height` pixels).
    private static func scale(_ source: UnsafeRawPointer, bytesPerRow: Int, width sw: Int, height sh: Int, redFirst: Bool,
                              to width: Int, _ height: Int, scaler: inout CameraPictureScaler?,
                              into out: UnsafeMutableBufferPointer<UInt32>) {
        if sw == width && sh == height {
            // At its own size (the camera track): a copy, red and blue swapped where needed.
            for y in 0..<height {
                let row = (source + y * bytesPerRow).assumingMemoryBound(to: UInt32.self)
                let destination = out.baseAddress! + y * width
                if !redFirst {
                    destination.update(from: row, count: width)
                    continue
                }
                for x in 0..<width {
                    let p = row[x]
                    destination[x] = (p & 0x0000_FF00) | ((p & 0xFF) << 16) | ((p >> 16) & 0xFF)
                }
            }
            return
        }
        if scaler?.scales(fromWidth: sw, sh, toWidth: width, height) != true {
            scaler = CameraPictureScaler(sourceWidth: sw, sourceHeight: sh, width: width, height: height)
        }
        scaler!.scale(source, bytesPerRow: bytesPerRow, redFirst: redFirst, into: out.baseAddress!)
    }
}
