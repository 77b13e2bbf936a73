import CFFmpeg
import RecordKit

/// An owned `SwrContext` converting interleaved PCM (float or s16) of one format into planar
/// float (FLTP) at the encoder's rate and channel count; freed on deinit.
final class Resampler {
    /// The input format this resampler was made for.
    let input: AudioFormat
    private let outputRate: Int
    private let outputChannels: Int
    private var context: OpaquePointer?
    private var planes: [UnsafeMutablePointer<Float>] = []
    private var capacity = 0

    /// Creates a resampler from `input` to FLTP at `outputRate` with `outputChannels` channels.
    init(input: AudioFormat, outputRate: Int, outputChannels: Int) throws(MediaError) {
        self.input = input
        self.outputRate = outputRate
        self.outputChannels = outputChannels
        var inLayout = AVChannelLayout()
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&inLayout, Int32(input.channels))
        av_channel_layout_default(&outLayout, Int32(outputChannels))
        defer {
            av_channel_layout_uninit(&inLayout)
            av_channel_layout_uninit(&outLayout)
        }
        let inFormat = input.sampleFormat == .float32Interleaved ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_S16
        let described = "\(input.sampleRate) Hz \(input.channels) ch \(input.sampleFormat.rawValue) to \(outputRate) Hz \(outputChannels) ch fltp"
        var result = swr_alloc_set_opts2(&context, &outLayout, AV_SAMPLE_FMT_FLTP, Int32(outputRate),
                                         &inLayout, inFormat, Int32(input.sampleRate), 0, nil)
        if result >= 0 { result = swr_init(context) }
        if result < 0 {
            swr_free(&context)
            throw MediaError("creating an audio converter from \(described)", code: result)
        }
    }

    /// Converts `frames` interleaved frames at `samples` (nil drains the converter's delay) and
    /// hands the planar result to `body`, valid only during the call.
    func convert(_ samples: UnsafeRawPointer?, frames: Int,
                 body: (UnsafePointer<UnsafeMutableRawPointer?>, Int) throws(MediaError) -> Void) throws(MediaError) {
        let needed = Int(swr_get_out_samples(context, Int32(frames)))
        guard needed > 0 else { return }
        reserve(needed)
        var output: [UnsafeMutablePointer<UInt8>?] = planes.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: UInt8.self) }
        var source: [UnsafePointer<UInt8>?] = [samples?.assumingMemoryBound(to: UInt8.self)]
        let converted = output.withUnsafeMutableBufferPointer { out in
            source.withUnsafeMutableBufferPointer { src in
                swr_convert(context, out.baseAddress, Int32(needed), samples == nil ? nil : src.baseAddress, Int32(frames))
            }
        }
        if converted < 0 {
            throw MediaError("converting \(frames) audio frames of \(input.sampleRate) Hz \(input.channels) ch", code: converted)
        }
        guard converted > 0 else { return }
        let raw: [UnsafeMutableRawPointer?] = planes.map { UnsafeMutableRawPointer($0) }
        try raw.withUnsafeBufferPointer { (pointers) throws(MediaError) in
            guard let base = pointers.baseAddress else { return }
            try body(base, Int(converted))
        }
    }

    private func reserve(_ frames: Int) {
        guard frames > capacity else { return }
        for plane in planes { plane.deallocate() }
        capacity = max(frames, 4096)
        planes = (0..<outputChannels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: capacity) }
    }

    deinit {
        for plane in planes { plane.deallocate() }
        swr_free(&context)
    }
}
