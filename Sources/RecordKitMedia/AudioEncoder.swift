import CFFmpeg
import RecordKit

/// An AAC-LC (FFmpeg's native `aac`) or Opus (libopus) encoder that takes PCM sample buffers and emits packets.
///
/// Input: ``SampleBuffer``s with a `.pcm` payload, normally ``AudioFormat/standard`` (48 kHz
/// stereo interleaved float) in blocks of any length; other rates, channel counts and s16 are
/// converted with libswresample. Samples are queued so that every frame sent to the encoder
/// has exactly ``EncodedFormat/frameSize`` (1024) samples, except the last one in ``finish(emit:)``.
/// The input is one contiguous track (as an `AudioTrackAssembler` makes it, which is where gaps
/// become silence and overlaps are trimmed, once): the first block's ``PCMData/startFrame``
/// places the track on the broadcast timeline and each later block must start where the one
/// before ended; a block that does not is refused with an error, never silently moved. Packets
/// are stamped in units of `1 / sampleRate`; the first starts at -1024 (the AAC encoder's
/// priming delay).
///
/// Threading: not thread-safe. Use one encoder from one thread at a time (a serial queue).
package final class AudioEncoder: @unchecked Sendable {
    /// The encoded stream's description, complete before the first packet (AudioSpecificConfig included).
    package let format: EncodedFormat
    /// Identifies this encoder; every packet carries it as ``EncodedPacket/encoderID``.
    package let id: String
    /// The sample type of the track this encoder encodes (`.audioApp`, `.audioMic`, `.audioMixed`).
    package let type: SampleBufferType

    private let codec: CodecContext
    let frame: UnsafeMutablePointer<AVFrame>
    /// Opus only: `frame` interleaved, what libopus takes.
    let interleaved: UnsafeMutablePointer<AVFrame>?
    private let fifo: AudioFifo
    private var resampler: Resampler?
    private let frameSize: Int
    private let sampleRate: Int
    /// Timestamp of the next frame sent to the encoder, in 1/sampleRate.
    private var nextPts: Int64?
    /// Where the next packet starts by the last one emitted (1/sampleRate): the timestamp of a
    /// drained packet that came without one.
    private var nextPacketPts: Int64?
    /// The input frame index expected next, in the input's own rate.
    private var expectedInputFrame: Int64?
    private var finished = false

    /// Opens an encoder for `settings` producing packets of sample type `type`.
    package init(settings: AudioEncoderSettings, type: SampleBufferType, id: String) throws(MediaError) {
        let isOpus = settings.codec == .opus
        guard settings.codec == .aac || isOpus else {
            throw MediaError("audio encoder \(id): \(settings.codec.rawValue) is not an audio codec (aac or opus)")
        }
        let rates = isOpus ? [8_000, 12_000, 16_000, 24_000, 48_000]
            : [8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 64_000, 88_200, 96_000]
        guard rates.contains(settings.sampleRate) else {
            throw MediaError("audio encoder \(id): sample rate \(settings.sampleRate) Hz is not an \(settings.codec.rawValue) rate")
        }
        if isOpus, !(6_000...510_000).contains(settings.bitRate) {
            throw MediaError("audio encoder \(id): Opus bitrate \(settings.bitRate) bit/s is out of range (6000...510000)")
        }
        guard (1...8).contains(settings.channels) else {
            throw MediaError("audio encoder \(id): \(settings.channels) channels is out of range (1...8)")
        }
        guard settings.bitRate >= 8_000 else {
            throw MediaError("audio encoder \(id): bitrate \(settings.bitRate) bit/s is too low (at least 8000)")
        }
        let codec = try CodecContext(encoderNamed: settings.codec.defaultEncoderName)
        let context = codec.pointer
        // libopus takes interleaved float; the FIFO holds planar float, interleaved per frame.
        let sampleFormat = isOpus ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_FLTP
        context.pointee.sample_fmt = sampleFormat
        context.pointee.sample_rate = Int32(settings.sampleRate)
        av_channel_layout_default(&context.pointee.ch_layout, Int32(settings.channels))
        context.pointee.bit_rate = Int64(settings.bitRate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
        context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        try codec.open(options: [:], describing: "\(settings.sampleRate) Hz, \(settings.channels) ch, \(settings.bitRate) bit/s")
        let frameSize = Int(context.pointee.frame_size)
        guard frameSize > 0 else { throw MediaError("audio encoder \(id): the \(codec.name) encoder reported no frame size") }

        let planar = try AudioEncoder.makeFrame(format: AV_SAMPLE_FMT_FLTP, settings: settings, frameSize: frameSize, layout: &context.pointee.ch_layout, id: id)
        var interleaved: UnsafeMutablePointer<AVFrame>?
        do {
            if isOpus {
                interleaved = try AudioEncoder.makeFrame(format: sampleFormat, settings: settings, frameSize: frameSize,
                                                         layout: &context.pointee.ch_layout, id: id)
            }
            self.fifo = try AudioFifo(channels: settings.channels, capacity: frameSize * 4)
        } catch {
            var owned: UnsafeMutablePointer<AVFrame>? = planar
            av_frame_free(&owned)
            av_frame_free(&interleaved)
            throw error
        }
        self.interleaved = interleaved
        let frame = planar
        self.codec = codec
        self.frame = frame
        self.frameSize = frameSize
        self.sampleRate = settings.sampleRate
        self.id = id
        self.type = type
        self.format = EncodedFormat(codec: settings.codec, timescale: Int32(settings.sampleRate), extradata: codec.extradata,
                                    bitRate: settings.bitRate, sampleRate: settings.sampleRate,
                                    channels: settings.channels, frameSize: frameSize)
    }

    /// Encodes one block of PCM (`block.payload` must be `.pcm`) and emits every packet that
    /// became ready. Each block must start where the previous one ended (throws otherwise). Each emitted sample has this encoder's
    /// ``type`` and shares the encoder's packet memory (no copy).
    package func encode(_ block: SampleBuffer, emit: (SampleBuffer) -> Void) throws(MediaError) {
        guard !finished else { throw MediaError("audio encoder \(id): encode called after finish") }
        guard case .pcm(let pcm) = block.payload else {
            throw MediaError("audio encoder \(id): got a \(block.type.rawValue) sample without PCM payload")
        }
        let input: AudioFormat
        if case .audio(let described) = block.formatDescription { input = described } else { input = .standard }
        guard input.sampleRate > 0, (1...8).contains(input.channels) else {
            throw MediaError("audio encoder \(id): input format \(input.sampleRate) Hz \(input.channels) ch is not supported")
        }
        guard pcm.frameCount >= 0, pcm.buffer.count >= pcm.frameCount * input.bytesPerFrame else {
            throw MediaError("audio encoder \(id): block at frame \(pcm.startFrame) claims \(pcm.frameCount) frames but holds \(pcm.buffer.count) bytes")
        }
        if resampler?.input != input {
            // A format change mid-track: keep what the old converter holds, then start a new one.
            if resampler != nil { try drainResampler(emit: emit) }
            resampler = try Resampler(input: input, outputRate: sampleRate, outputChannels: format.channels)
        }
        guard let resampler else { return }

        if let expected = expectedInputFrame {
            guard pcm.startFrame == expected else {
                throw MediaError("audio encoder \(id): a block starts at frame \(pcm.startFrame), not at \(expected) where the track "
                    + "ended; the track must be contiguous (AudioTrackAssembler fills gaps and trims overlaps)")
            }
        } else {
            nextPts = av_rescale_q(pcm.startFrame, AVRational(num: 1, den: Int32(input.sampleRate)),
                                   AVRational(num: 1, den: Int32(sampleRate)))
        }
        expectedInputFrame = pcm.startFrame + Int64(pcm.frameCount)
        let frames = pcm.frameCount
        guard frames > 0, let base = pcm.buffer.bytes.baseAddress else { return }
        try resampler.convert(base, frames: frames) { (planes, count) throws(MediaError) in
            try fifo.write(planes, frames: count)
        }
        try sendFullFrames(emit: emit)
    }

    /// Flushes: encodes what is queued (a last, shorter frame if needed), drains the encoder and
    /// emits the remaining packets. Call once, last.
    package func finish(emit: (SampleBuffer) -> Void) throws(MediaError) {
        guard !finished else { return }
        finished = true
        try drainResampler(emit: emit)
        let rest = fifo.count
        if rest > 0 {
            try sendFrame(samples: rest, emit: emit)
        }
        try codec.encode(nil, what: "audio encoder \(id): flushing") { packet in
            emit(sample(from: packet))
        }
    }

    private func drainResampler(emit: (SampleBuffer) -> Void) throws(MediaError) {
        guard let resampler else { return }
        try resampler.convert(nil, frames: 0) { (planes, count) throws(MediaError) in
            try fifo.write(planes, frames: count)
        }
        try sendFullFrames(emit: emit)
    }

    private func sendFullFrames(emit: (SampleBuffer) -> Void) throws(MediaError) {
        while fifo.count >= frameSize {
            try sendFrame(samples: frameSize, emit: emit)
        }
    }

    private func sendFrame(samples: Int, emit: (SampleBuffer) -> Void) throws(MediaError) {
        let writable = av_frame_make_writable(frame)
        if writable < 0 { throw MediaError("audio encoder \(id): making the frame writable", code: writable) }
        frame.pointee.nb_samples = Int32(samples)
        try fifo.read(into: frame, frames: samples)
        let pts = nextPts ?? 0
        frame.pointee.pts = pts
        nextPts = pts + Int64(samples)
        let input = try interleave(samples: samples) ?? frame
        try codec.encode(input, what: "audio encoder \(id): encoding \(samples) samples at pts \(pts)") { packet in
            emit(sample(from: packet))
        }
    }

    /// Wraps an owned packet (timestamps in 1/sampleRate) in a sample buffer, without copying.
    private func sample(from packet: UnsafeMutablePointer<AVPacket>) -> SampleBuffer {
        let timescale = Int32(sampleRate)
        // libavcodec's audio frame queue gives a packet drained after its last input no
        // timestamp when the queue ran empty (seen with libopus at stop, now and then): such a
        // packet follows the one before it.
        var pts = packet.pointee.pts
        if pts == shim_av_nopts_value() { pts = nextPacketPts ?? 0 }
        let dts = packet.pointee.dts == shim_av_nopts_value() ? pts : packet.pointee.dts
        let duration = packet.pointee.duration > 0 ? packet.pointee.duration : Int64(frameSize)
        nextPacketPts = pts + duration
        let encoded = EncodedPacket(data: PacketBuffer.adopting(packet), decodeTime: MediaTime(value: dts, timescale: timescale),
                                    isKeyFrame: true, encoderID: id)
        return SampleBuffer(type: type, presentationTime: MediaTime(value: pts, timescale: timescale),
                            duration: MediaTime(value: duration, timescale: timescale),
                            formatDescription: .encoded(format), payload: .packet(encoded))
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&owned)
        var other = interleaved
        av_frame_free(&other)
    }
}
