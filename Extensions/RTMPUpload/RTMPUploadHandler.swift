import RecordKit
import RecordKitMedia
import Synchronization

/// The built-in RTMP handler: broadcasts H.264 and one AAC track (app and microphone audio
/// mixed) as FLV over RTMP or RTMPS to a streaming service or the user's own server, while the
/// recording goes on. The same handler streams MPEG-TS over SRT (caller mode) for an `srt://`
/// URL (``SRTEndpoint``; the built-in extension `srt`), with the same queue, drop policy,
/// reconnection and status.
///
/// Input: encoded video with ``RTMPOutputOptions/video`` and ``SampleBufferType/audioMixed``
/// with ``RTMPOutputOptions/audio``: packets of the pipeline's shared encoders, so a file
/// recording with the same video settings costs no second encode, and several endpoints share
/// one.
///
/// The network never blocks the pipeline: ``processSampleBuffer(_:with:)`` only queues the
/// packet and returns. A thread of the handler's own connects (from ``broadcastStarted(setupInfo:context:)``
/// on, without waiting for samples), sends, and reconnects with back-off when the connection is
/// lost (``RTMPReconnectPolicy``). While it is down, up to ``RTMPOutputOptions/bufferSeconds``
/// of media wait; beyond that the oldest whole groups of pictures are dropped and counted.
/// After a reconnection the stream goes on from a key frame, its timestamps continuing.
/// H.264 filler data (x264 pads constant-bitrate frames with it) is not sent
/// (``H264FillerStripper``): the stream stays within its bitrate and a static screen costs
/// almost nothing.
///
/// Errors end this handler alone (``BroadcastContext/finishBroadcast(with:)``), never the
/// recording or other handlers:
/// * an unknown host, a refused connection, a server that is not RTMP, a rejected publish (wrong
///   stream key or application), when the first connection fails;
/// * reconnecting that failed ``RTMPReconnectPolicy/maxAttempts`` times.
/// * for `rtmps://`, a server certificate that is not trusted (self-signed, a private CA not
///   given as ``RTMPOutputOptions/caFile``) or made out for another host than the URL's.
/// A malformed URL, an unsupported scheme (or `rtmps://` without TLS in FFmpeg), a CA file that
/// cannot be read or holds no certificate, and a recording without video are refused by
/// ``broadcastStarted(setupInfo:context:)`` itself.
///
/// Secrets: the stream key appears in no message, status or log line, FFmpeg's included
/// (``FFmpegLog``); the URL is shown as `rtmp://host/app/****`.
///
/// Status (``BroadcastContext/publish(serviceInfo:)``): `url`, `state` (`connecting`, `live`,
/// `reconnecting (attempt N)`, `failed`, `finished`), `bytesSent`, `bitrateKbps`, `dropped`
/// (video and audio packets this handler dropped), and `lastError` (what broke the connection
/// last); on every change of state, and the counters at most once a second.
///
/// Threading: called serially by the pipeline; a ``QueueOwningHandler``: the pipeline hands it
/// packets directly, the sender's ``PacketQueue`` is the output's only queue and drop policy, and
/// the pipeline's statistics (`droppedVideo`, the metrics' dropped frames) are its counts.
package final class RTMPUploadHandler: QueueOwningHandler, @unchecked Sendable {
    /// The options the handler was created with.
    package let options: RTMPOutputOptions
    private var sender: RTMPSender?
    /// The sender, kept after the broadcast finished so that its final counts stay readable.
    private let counted = Mutex<RTMPSender?>(nil)
    private var context: (any BroadcastContext)?

    /// Creates a handler; nothing connects before ``broadcastStarted(setupInfo:context:)``.
    package init(options: RTMPOutputOptions) {
        self.options = options
    }

    /// H.264 with ``RTMPOutputOptions/video`` and the mixed audio track as AAC with
    /// ``RTMPOutputOptions/audio``.
    package var input: HandlerInput {
        HandlerInput(video: .encoded(options.video), mixedAudio: .encoded(options.audio))
    }

    /// Checks the URL and the options and starts connecting; publishes `connecting`.
    ///
    /// Throws ``BroadcastError/Kind/invalidSetup`` for a malformed URL, an unsupported scheme, a
    /// build of FFmpeg that cannot write the scheme, bad option values, or a recording without
    /// video. Network failures are not thrown: they end the handler through `context` once
    /// known (the first connection attempt is made at once, on the handler's thread).
    package func broadcastStarted(setupInfo: SetupInfo, context: any BroadcastContext) throws {
        let endpoint: any StreamDestination
        if options.url.lowercased().hasPrefix("srt://") {
            let srt = try SRTEndpoint(parsing: options.url)
            guard NetworkOutput.supportsOutputProtocol("srt") else {
                throw BroadcastError(.invalidSetup, "cannot stream to \(srt.masked): this build of FFmpeg has no SRT (libsrt); use an FFmpeg built with libsrt")
            }
            endpoint = srt
        } else {
            var rtmp = try RTMPEndpoint(parsing: options.url)
            if rtmp.scheme == .rtmps, let caFile = options.caFile {  // RTMPS: verified against the CA file given
                try RTMPCAFile.check(caFile)
                rtmp.caFile = caFile
            }
            guard NetworkOutput.supportsOutputProtocol(rtmp.scheme.rawValue) else {
                throw BroadcastError(.invalidSetup, "cannot broadcast to \(rtmp.masked): this build of FFmpeg cannot write "
                    + "\(rtmp.scheme.rawValue):// URLs (no TLS support?); use rtmp:// or an FFmpeg built with TLS")
            }
            endpoint = rtmp
        }
        try options.validate()
        guard let video = context.encodedFormat(of: .video) else {
            throw BroadcastError(.invalidSetup, "cannot broadcast to \(endpoint.masked): the recording has no video")
        }
        var streams: [(type: SampleBufferType, format: EncodedFormat)] = [(.video, video)]
        if let audio = context.encodedFormat(of: .audioMixed) { streams.append((.audioMixed, audio)) }
        FFmpegLog.install()
        self.context = context
        if let note = options.note { context.publish(serviceInfo: ["note": note]) }
        let sender = RTMPSender(endpoint: endpoint, options: options, context: context, streams: streams)
        self.sender = sender
        counted.withLock { $0 = sender }
        sender.start()
    }

    /// Queues an encoded video or mixed-audio packet for the sender; returns at once. Other
    /// samples are ignored.
    package func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        guard type == .video || type == .audioMixed, case .packet = sampleBuffer.payload,
              case .encoded = sampleBuffer.formatDescription else { return }
        sender?.enqueue(sampleBuffer)
    }

    /// The sender queue's counts (all zero before the broadcast started); any thread.
    package var queueCounts: HandlerCounts { counted.withLock { $0?.queueCounts } ?? HandlerCounts() }

    /// Sends what is still queued (for at most ``RTMPOutputOptions/finishTimeoutSeconds``),
    /// then closes the connection, which ends the stream on the server. When the recording is
    /// discarded the connection is closed at once (what was broadcast cannot be taken back).
    package func broadcastFinished() {
        sender?.finish(discarding: context?.isDiscarding ?? false)
        sender = nil
        context = nil
    }
}
