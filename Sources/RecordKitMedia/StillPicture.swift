import RecordKit

/// A still screen's picture coded once, shown again without the encoder: the packet of the
/// picture as a key frame and the packet of the same picture coded right after it as a
/// reference picture (P), kept by ``VideoEncoder/closeOnStill(_:pts:emit:)``.
///
/// At variable frame rate a still screen would otherwise cost an encoder restart per key frame
/// interval (drain, free, open again: x264 faults its 70 MB back in each time). With these two
/// packets the stream goes on as *key frame, reference, key frame, reference …*, re-stamped at
/// the slots where they are due (the reference at the last repeat before the next key frame) (``VideoEncoder/show(_:keyFrame:at:emit:)``): every key frame
/// still comes by time (a file cuts its fragments there; a replay clip can start there), and no
/// two key frames are ever consecutive (H.264 would then want their `idr_pic_id`s to differ).
/// The reference picture decodes to the key frame's picture: it was coded from the same
/// picture, right after it, against it.
package struct StillPicture: Sendable {
    /// The picture as a key frame (an IDR), as the encoder emitted it.
    package let keyFrame: MediaBuffer
    /// The same picture coded right after it, predicted from it.
    package let reference: MediaBuffer
    /// Whether the reference has been shown since the key frame was last shown: the next
    /// picture to show after a key frame is the reference.
    package var referenceShown = true
    /// The presentation time of the last picture shown from here (`1 / frameRate` seconds).
    package var lastShownPts: Int64

    /// The two packets of a picture closed on at `pts` (the key frame's time).
    package init(keyFrame: MediaBuffer, reference: MediaBuffer, pts: Int64) {
        self.keyFrame = keyFrame
        self.reference = reference
        self.lastShownPts = pts
        self.referenceShown = false
    }
}
