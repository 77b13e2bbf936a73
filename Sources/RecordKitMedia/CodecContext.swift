import CFFmpeg
import RecordKitSupport

/// An owned encoder `AVCodecContext`: open, send frames, drain packets; freed on deinit.
///
/// Not thread-safe; its owner (``VideoEncoder`` or ``AudioEncoder``) serialises use.
final class CodecContext {
    /// The context. Configure its fields between `init` and ``open(options:)``.
    let pointer: UnsafeMutablePointer<AVCodecContext>
    /// A human-readable name for messages ("libx264", "aac").
    let name: String
    private let codec: UnsafePointer<AVCodec>
    private let scratch: UnsafeMutablePointer<AVPacket>

    /// Allocates a context for the encoder called `name` (`avcodec_find_encoder_by_name`).
    init(encoderNamed name: String) throws(MediaError) {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw MediaError("FFmpeg has no encoder named \(name); install a build of libavcodec that includes it")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError("allocating a \(name) encoder", code: shim_averror(ENOMEM))
        }
        guard let scratch = av_packet_alloc() else {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            throw MediaError("allocating a packet for \(name)", code: shim_averror(ENOMEM))
        }
        self.codec = codec
        self.pointer = context
        self.name = name
        self.scratch = scratch
    }

    /// Opens the encoder with codec-private `options` (for example `preset`). An option the
    /// encoder does not know is an error, so typos do not pass silently.
    func open(options: [String: String], describing settings: String) throws(MediaError) {
        let dictionary = OptionDictionary(options)
        let result = avcodec_open2(pointer, codec, &dictionary.pointer)
        if result < 0 { throw MediaError("opening the \(name) encoder (\(settings))", code: result) }
        let unknown = dictionary.remainingKeys
        if !unknown.isEmpty {
            throw MediaError("opening the \(name) encoder (\(settings)) failed: it does not know the option(s) \(unknown.joined(separator: ", "))")
        }
    }

    /// The global header (`extradata`) the encoder produced when opened.
    var extradata: [UInt8] {
        guard let data = pointer.pointee.extradata, pointer.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.extradata_size)))
    }

    /// Sends one frame (nil flushes), then hands every packet the encoder has ready to `body`,
    /// which takes ownership of it (an `av_packet_alloc`ed, reference-counted packet).
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?, what: @autoclosure () -> String,
                body: (UnsafeMutablePointer<AVPacket>) -> Void) throws(MediaError) {
        // Timed only while someone observes (the metrics endpoint): otherwise one lock read.
        let observer = frame == nil ? nil : EncodeTimeObserver.observer
        let began = observer == nil ? 0 : MonotonicClock.nanoseconds()
        defer {
            observer?.observe(pointer.pointee.codec_type == AVMEDIA_TYPE_AUDIO ? .audio : .video, name,
                              Double(MonotonicClock.nanoseconds() - began) / 1e9)
        }
        var result = avcodec_send_frame(pointer, frame)
        if result == shim_averror_eagain() {
            // Cannot happen when every send is followed by a full drain; recover anyway.
            try drain(what: what(), body: body)
            result = avcodec_send_frame(pointer, frame)
        }
        if result < 0 { throw MediaError("\(what()): sending to \(name)", code: result) }
        try drain(what: what(), body: body)
    }

    private func drain(what: @autoclosure () -> String, body: (UnsafeMutablePointer<AVPacket>) -> Void) throws(MediaError) {
        while true {
            let result = avcodec_receive_packet(pointer, scratch)
            if result == shim_averror_eagain() || result == shim_averror_eof() { return }
            if result < 0 { throw MediaError("\(what()): receiving from \(name)", code: result) }
            guard let owned = av_packet_alloc() else {
                av_packet_unref(scratch)
                throw MediaError("\(what()): allocating a packet", code: shim_averror(ENOMEM))
            }
            av_packet_move_ref(owned, scratch)
            let made = av_packet_make_refcounted(owned)
            if made < 0 {
                var dropped: UnsafeMutablePointer<AVPacket>? = owned
                av_packet_free(&dropped)
                throw MediaError("\(what()): keeping a packet", code: made)
            }
            body(owned)
        }
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = scratch
        av_packet_free(&packet)
        var context: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&context)
    }
}
