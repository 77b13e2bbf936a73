import CFFmpeg
import RecordKit

extension AudioEncoder {
    /// Allocates a frame of `frameSize` samples in `format` with the encoder's layout.
    static func makeFrame(format: AVSampleFormat, settings: AudioEncoderSettings, frameSize: Int,
                          layout: UnsafeMutablePointer<AVChannelLayout>, id: String) throws(MediaError) -> UnsafeMutablePointer<AVFrame> {
        guard let frame = av_frame_alloc() else { throw MediaError("audio encoder \(id): allocating a frame", code: shim_averror(ENOMEM)) }
        frame.pointee.format = format.rawValue
        frame.pointee.sample_rate = Int32(settings.sampleRate)
        frame.pointee.nb_samples = Int32(frameSize)
        av_channel_layout_copy(&frame.pointee.ch_layout, layout)
        let allocated = av_frame_get_buffer(frame, 0)
        if allocated < 0 {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
            throw MediaError("audio encoder \(id): allocating a frame of \(frameSize) samples", code: allocated)
        }
        return frame
    }

    /// For Opus: copies the first `samples` of the planar frame into the interleaved one (same
    /// pts) and returns it; nil for AAC, which takes the planar frame as it is.
    func interleave(samples: Int) throws(MediaError) -> UnsafeMutablePointer<AVFrame>? {
        guard let target = interleaved else { return nil }
        let writable = av_frame_make_writable(target)
        if writable < 0 { throw MediaError("audio encoder \(id): making the Opus frame writable", code: writable) }
        let source = frame
        let channels = Int(source.pointee.ch_layout.nb_channels)
        target.pointee.nb_samples = Int32(samples)
        target.pointee.pts = source.pointee.pts
        guard let out = target.pointee.data.0 else { return target }
        let dst = UnsafeMutableRawPointer(out).assumingMemoryBound(to: Float.self)
        for channel in 0..<channels {
            guard let plane = source.pointee.extended_data[channel] else { continue }
            let src = UnsafeRawPointer(plane).assumingMemoryBound(to: Float.self)
            for i in 0..<samples { dst[i * channels + channel] = src[i] }
        }
        return target
    }
}
