import CFFmpeg

/// A captured picture already converted to the encoder's yuv420p output (``VideoEncoder/convert(bgr0:bytesPerRow:width:height:)``),
/// waiting to be encoded. Owns its frame (about 3 MB at 1080p); freed on deinit.
///
/// Converting apart from encoding frees the capture buffer after the conversion (a few ms) instead
/// of after the encode, so a queue of converted pictures can absorb an encoder that is late for
/// a fraction of a second without holding capture memory. Immutable once made: any thread.
package final class ConvertedPicture: @unchecked Sendable {
    let frame: UnsafeMutablePointer<AVFrame>

    init(frame: UnsafeMutablePointer<AVFrame>) {
        self.frame = frame
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&owned)
    }
}
