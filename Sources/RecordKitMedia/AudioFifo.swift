import CFFmpeg

/// An owned `AVAudioFifo` of planar float samples; freed on deinit.
final class AudioFifo {
    private let fifo: OpaquePointer
    private let channels: Int

    /// Creates a FIFO of FLTP samples with `channels` channels.
    init(channels: Int, capacity: Int) throws(MediaError) {
        guard let fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, Int32(channels), Int32(capacity)) else {
            throw MediaError("allocating an audio FIFO for \(channels) channels", code: shim_averror(ENOMEM))
        }
        self.fifo = fifo
        self.channels = channels
    }

    /// Frames waiting.
    var count: Int { Int(av_audio_fifo_size(fifo)) }

    /// Appends `frames` frames from the planes at `planes` (one pointer per channel).
    func write(_ planes: UnsafePointer<UnsafeMutableRawPointer?>, frames: Int) throws(MediaError) {
        let written = av_audio_fifo_write(fifo, UnsafeMutablePointer(mutating: planes), Int32(frames))
        if written < 0 { throw MediaError("queueing \(frames) audio frames", code: written) }
    }

    /// Moves `frames` frames into the planes of `frame` (which must hold at least that many).
    func read(into frame: UnsafeMutablePointer<AVFrame>, frames: Int) throws(MediaError) {
        let read = frame.pointee.extended_data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: channels) {
            av_audio_fifo_read(fifo, $0, Int32(frames))
        }
        if read < 0 { throw MediaError("reading \(frames) audio frames from the queue", code: read) }
    }

    deinit { av_audio_fifo_free(fifo) }
}
