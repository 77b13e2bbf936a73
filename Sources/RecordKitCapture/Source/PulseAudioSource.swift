import RecordKit
import RecordKitSupport
import Synchronization

/// The PulseAudio audio source ("pulse" in ``AudioSourceRegistry``; PipeWire's pipewire-pulse
/// speaks the same protocol): the connection and one capture stream per track (`audioApp`,
/// `audioMic`). A missing server or source means fewer tracks and a warning, unless the request
/// requires audio. Captured chunks reach the sink once one is connected with ``deliver(to:)``
/// (streams open before the pipeline's audio graph exists, so that handlers know which tracks
/// the recording has).
final class PulseAudioSource: AudioSource, @unchecked Sendable {
    private let connection: PulseAudioConnection?
    private let streams: [AudioCaptureStream]
    private let opened: [SampleBufferType]
    private let requiredFailure: CaptureError?
    private let sink: SinkBox

    private init(connection: PulseAudioConnection?, streams: [AudioCaptureStream], opened: [SampleBufferType],
                 requiredFailure: CaptureError?, sink: SinkBox) {
        self.connection = connection
        self.streams = streams
        self.opened = opened
        self.requiredFailure = requiredFailure
        self.sink = sink
    }

    /// Opens the tracks `request` asks for; never throws (see ``tracks()``).
    static func open(_ request: AudioSourceRequest, warn: (String) -> Void) -> PulseAudioSource {
        let box = SinkBox()
        guard !request.tracks.isEmpty else { return PulseAudioSource(connection: nil, streams: [], opened: [], requiredFailure: nil, sink: box) }
        let connection: PulseAudioConnection
        do throws(CaptureError) {
            connection = try PulseAudioConnection(server: request.server, clientName: "RecordKit")
        } catch {
            if request.requireAudio { return PulseAudioSource(connection: nil, streams: [], opened: [], requiredFailure: error, sink: box) }
            warn("\(error.message): recording video only")
            return PulseAudioSource(connection: nil, streams: [], opened: [], requiredFailure: nil, sink: box)
        }
        var streams: [AudioCaptureStream] = []
        var opened: [SampleBufferType] = []
        var failure: CaptureError?
        for track in request.tracks {
            let type = track.type
            do throws(CaptureError) {
                let stream = try connection.openStream(track.selector, name: type == .audioApp ? "app audio" : "microphone") {
                    samples, frames, captureNs in
                    box.current?.sink(type, samples, frames, captureNs)
                }
                streams.append(stream)
                opened.append(type)
            } catch {
                if request.requireAudio { failure = failure ?? error; continue }
                warn("\(error.message): recording without \(type == .audioApp ? "app audio" : "microphone")")
            }
        }
        return PulseAudioSource(connection: connection, streams: streams, opened: opened, requiredFailure: failure, sink: box)
    }

    func tracks() throws(CaptureError) -> [SampleBufferType] {
        if let requiredFailure { throw requiredFailure }
        return opened
    }

    func deliver(to sink: @escaping AudioChunkSink) { self.sink.bind(AudioSinkHolder(sink)) }

    var onDisconnect: (@Sendable (String) -> Void)? {
        get { connection?.onDisconnect }
        set { connection?.onDisconnect = newValue }
    }

    func stop() {
        for s in streams { s.stop() }
    }

    func close() {
        stop()
        connection?.close()
    }
}

/// Lets PulseAudio callbacks, set up before the sink exists, reach it once connected. The sink
/// is held by a class reference (`LateBound`), so reading it hands out the closure itself, not
/// a generic re-abstraction of it (read out of a `Mutex<closure?>` on every chunk, that went
/// through re-abstraction thunks without end and held the mainloop lock).
private typealias SinkBox = LateBound<AudioSinkHolder>

/// One connected sink.
private final class AudioSinkHolder: Sendable {
    let sink: AudioChunkSink
    init(_ sink: @escaping AudioChunkSink) { self.sink = sink }
}
