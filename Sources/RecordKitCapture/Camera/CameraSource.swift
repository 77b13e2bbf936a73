/// Where a camera hands each picture: `height` rows of `bytesPerRow` bytes at `pixels`, 4 bytes
/// per pixel in B, G, R, X order (R, G, B, X when `redFirst`), captured at `captureNs`
/// (`CLOCK_MONOTONIC`). Called on the camera's own thread, one picture at a time; the pixels
/// are valid only during the call.
package typealias CameraPictureSink = @Sendable (_ pixels: UnsafeRawPointer, _ bytesPerRow: Int, _ width: Int, _ height: Int,
                                                 _ redFirst: Bool, _ captureNs: UInt64) -> Void

/// A camera a recording composites into the screen picture (``CameraOverlaySource``), from
/// ``CameraSourceRegistry``: PipeWire camera nodes today.
///
/// `width`/`height` are the negotiated size, fixed once opened. Pictures come on a thread of the
/// source's own (never Swift's cooperative pool) from ``start(deliver:)`` on; after ``stop()``
/// returns nothing is delivered.
package protocol CameraSource: AnyObject, Sendable {
    /// Width in pixels of every picture.
    var width: Int { get }
    /// Height in pixels of every picture.
    var height: Int { get }
    /// The name it was opened under (``CameraInfo/name``).
    var name: String { get }
    /// Why the camera stopped delivering (its node went away, an error), or nil while it runs.
    var endReason: String? { get }
    /// What the camera sends, at what size ("MJPEG 640x480"); empty when not known.
    var format: String { get }
    /// Pictures that arrived and were skipped (an MJPEG picture that could not be decoded, one
    /// not of the negotiated size), and why the last one was. Never fatal: the picture before
    /// stays on show.
    var skipped: (count: Int64, lastReason: String?) { get }
    /// Starts delivering pictures; only the first call does anything.
    func start(deliver: @escaping CameraPictureSink)
    /// Stops and releases everything; idempotent, from any thread but the delivering one.
    func stop()
}

extension CameraSource {
    /// Not known.
    package var format: String { "" }
    /// None.
    package var skipped: (count: Int64, lastReason: String?) { (0, nil) }
}
