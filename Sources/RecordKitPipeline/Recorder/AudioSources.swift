import RecordKit
import RecordKitCapture
import Synchronization

/// The PulseAudio side of a recording: the connection and one capture stream per track
/// (`audioApp`, `audioMic`). A missing server or source means fewer tracks and a warning,
/// unless the configuration requires audio. Captured chunks reach the ``AudioGraph`` once it is
/// connected with ``deliver(to:)`` (streams open before the graph exists, so that handlers
/// know which tracks the recording has).
final class AudioSources: @unchecked Sendable {
    let connection: PulseAudioConnection?
    let streams: [AudioCaptureStream]
    private let opened: [SampleBufferType]
    private let requiredFailure: RecorderError?
    private let graph: GraphBox

    private init(connection: PulseAudioConnection?, streams: [AudioCaptureStream], opened: [SampleBufferType],
                 requiredFailure: RecorderError?, graph: GraphBox) {
        self.connection = connection
        self.streams = streams
        self.opened = opened
        self.requiredFailure = requiredFailure
        self.graph = graph
    }

    /// Opens the tracks `configuration` asks for; never throws (see ``types()``).
    static func open(_ configuration: RecordingConfiguration, warn: (String) -> Void) -> AudioSources {
        var tracks: [(SampleBufferType, AudioSourceSelector)] = []
        if let s = configuration.appAudio { tracks.append((.audioApp, s)) }
        if let s = configuration.micAudio { tracks.append((.audioMic, s)) }
        let box = GraphBox()
        guard !tracks.isEmpty else { return AudioSources(connection: nil, streams: [], opened: [], requiredFailure: nil, graph: box) }
        let connection: PulseAudioConnection
        do throws(CaptureError) {
            connection = try PulseAudioConnection(server: configuration.audioServer, clientName: "RecordKit")
        } catch {
            if configuration.requireAudio { return AudioSources(connection: nil, streams: [], opened: [], requiredFailure: error.recorderError, graph: box) }
            warn("\(error.message): recording video only")
            return AudioSources(connection: nil, streams: [], opened: [], requiredFailure: nil, graph: box)
        }
        var streams: [AudioCaptureStream] = []
        var opened: [SampleBufferType] = []
        var failure: RecorderError?
        for (type, selector) in tracks {
            do throws(CaptureError) {
                let stream = try connection.openStream(selector, name: type == .audioApp ? "app audio" : "microphone") {
                    samples, frames, captureNs in
                    box.graph.withLock { $0 }?.deliver(type, samples: samples, frameCount: frames, captureNs: captureNs)
                }
                streams.append(stream)
                opened.append(type)
            } catch {
                if configuration.requireAudio { failure = failure ?? error.recorderError; continue }
                warn("\(error.message): recording without \(type == .audioApp ? "app audio" : "microphone")")
            }
        }
        return AudioSources(connection: connection, streams: streams, opened: opened, requiredFailure: failure, graph: box)
    }

    /// The tracks that record; throws when audio is required and a track could not open.
    func types() throws(RecorderError) -> [SampleBufferType] {
        if let requiredFailure { throw requiredFailure }
        return opened
    }

    /// Sends every captured chunk from now on to `graph`.
    func deliver(to graph: AudioGraph) { self.graph.graph.withLock { $0 = graph } }

    /// Stops the streams and closes the connection.
    func close() {
        for s in streams { s.stop() }
        connection?.close()
    }
}

/// Lets PulseAudio callbacks, set up before the graph exists, reach it once built.
private final class GraphBox: Sendable {
    let graph = Mutex<AudioGraph?>(nil)
}

extension CaptureError {
    /// The recorder error for a capture error.
    var recorderError: RecorderError {
        switch kind {
        case .badRegion, .unknownSource: return RecorderError(.badArgument, message)
        case .noDisplay, .windowNotFound, .windowGone, .noAudioServer, .audioSourceNotFound, .portalUnavailable:
            return RecorderError(.unavailable, message)
        case .xError, .audioError, .portalError: return RecorderError(.failed, message)
        }
    }
}
