import RecordKitMedia

extension Recorder {
    /// The newest picture of the recording as a `format` image ("png", "jpg"/"jpeg"), scaled to
    /// fit inside `width`x`height` with the aspect ratio kept (nil: the picture's size), JPEG at
    /// `quality` 0...100 (nil: 90). Taken from the picture the video encoder was last given (no
    /// second capture). Returns the image's bytes and size. Blocks the caller for the encode
    /// (tens of ms at 1080p), never the recording. Throws ``RecorderError/Kind/invalidState``
    /// before the first frame or when not recording or paused.
    package func screenshot(format: String, width: Int?, height: Int?, quality: Int?) throws(RecorderError)
        -> (bytes: [UInt8], width: Int, height: Int) {
        let state = self.state
        guard state == .recording || state == .paused, let picture = videoStages.first?.latestPicture else {
            throw RecorderError(.invalidState, "a screenshot needs a recording with a captured picture; the recording is \(state.rawValue)")
        }
        let size = StillImageEncoder.size(of: picture, width: width, height: height)
        do throws(MediaError) {
            let bytes = try StillImageEncoder.encode(picture, format: format, width: size.width, height: size.height, quality: quality)
            return (bytes, size.width, size.height)
        } catch {
            throw RecorderError(.failed, "encoding the screenshot failed: \(error.message)")
        }
    }
}
