/// Decodes one compressed camera picture (a JPEG of an MJPEG camera) and hands it to `deliver`
/// as `height` rows of `bytesPerRow` bytes of B, G, R, X pixels, valid only during that call,
/// and returns nil; for a picture it cannot decode (corrupt or cut short) it returns why,
/// without calling `deliver`. Called on the camera's own thread, one picture at a time; it
/// keeps its decoder state (frame, scaler) from picture to picture.
package typealias CameraPictureDecode = (_ data: UnsafeRawBufferPointer,
                                         _ deliver: (_ pixels: UnsafeRawPointer, _ bytesPerRow: Int, _ width: Int, _ height: Int) -> Void)
    -> String?

/// Makes the decoder of one camera stream (nil when it cannot, e.g. no decoder in this build of
/// FFmpeg). Handed to the camera sources by the executables (RecordKitCapture links no codec
/// library): MJPEGDecoder in RecordKitMedia.
package typealias CameraPictureDecoderFactory = @Sendable () -> CameraPictureDecode?
