import RecordKit
import RecordKitCapture
import RecordKitMedia

/// One encoder stage per distinct encoded route, opened before any handler starts, and the
/// format of every route (encoded ones from their encoder, raw ones from the capture), so that
/// each handler gets its streams' formats in `broadcastStarted`.
struct EncoderSet {
    /// The format of every route.
    let formats: [SampleRoute: FormatDescription]
    let videoStages: [VideoEncodeStage]
    /// One per distinct PCM input and settings; a stage may feed more routes than its own
    /// (``AudioEncodeStage/fedRoutes``: the "mixed" route when one audio track records).
    let audioStages: [AudioEncodeStage]
    private let rawVideo: [SampleRoute]
    private let rawAudio: [SampleRoute]
    private let slot: DispatcherSlot
    private let frameRate: Int

    /// Opens an encoder for every encoded route in `routes`; their packets go to `slot`.
    /// `lowDelayRoutes`: the routes whose encoder holds no frame back (variable frame rate with a
    /// live consumer), see ``VideoEncoder``. `spliceRoutes`: the encoded video routes
    /// whose every consumer tolerates encoder delay (constant frame rate only): their stages
    /// splice skips for unchanged slots (``StillRunEncoder``). `drainRoutes`: variable frame rate
    /// routes with look-ahead, drained on a still screen (``VideoEncodeStage``).
    /// `singleAudioTrack`: the one audio track that records, when there is exactly one; the
    /// "mixed" track is then that track's PCM, so its encoded route shares the track's encoder
    /// (one AAC encode, its packets relabelled `.audioMixed`) instead of encoding it twice.
    static func open(routes: Set<SampleRoute>, capture: any VideoSource, frameRate: Int, slot: DispatcherSlot,
                     lowDelayRoutes: Set<SampleRoute> = [], spliceRoutes: Set<SampleRoute> = [], drainRoutes: Set<SampleRoute> = [],
                     singleAudioTrack: SampleBufferType? = nil,
                     onRouteFailed: @escaping @Sendable (SampleRoute, String) -> Void,
                     onOverload: @escaping @Sendable (String) -> Void) throws(RecorderError) -> EncoderSet {
        var formats: [SampleRoute: FormatDescription] = [:]
        var videoStages: [VideoEncodeStage] = []
        var audioStages: [AudioEncodeStage] = []
        var rawVideo: [SampleRoute] = []
        var rawAudio: [SampleRoute] = []
        let mixedAliases = Self.mixedAliases(in: routes, singleAudioTrack: singleAudioTrack)
        var index = 0
        for route in routes.sorted(by: { $0.description < $1.description }) where !mixedAliases.values.contains(route) {
            index += 1
            switch route {
            case .video(.encoded(let settings)):
                do {
                    let stage = try VideoEncodeStage(
                        settings: settings, width: capture.width, height: capture.height, frameRate: frameRate, id: "\(settings.codec.rawValue)-\(index)",
                        lowDelay: lowDelayRoutes.contains(route), spliceSkips: spliceRoutes.contains(route),
                        drainWhenStill: drainRoutes.contains(route),
                        onPacket: { slot.push($0, on: route) }, onError: { onRouteFailed(route, $0.message) }, onOverload: onOverload)
                    videoStages.append(stage)
                    formats[route] = .encoded(stage.format)
                } catch { throw RecorderError(.failed, "cannot open the \(settings.codec.rawValue) video encoder: \(error.message)") }
            case .video(.raw(let pixelFormat)):
                rawVideo.append(route)
                formats[route] = .video(VideoFormat(width: capture.width, height: capture.height, pixelFormat: pixelFormat))
            case .audio(let type, .encoded(let settings)):
                do {
                    let stage = try audioStage(type: type, settings: settings, id: "\(settings.codec.rawValue)-\(type.rawValue)-\(index)",
                                               slot: slot, onRouteFailed: onRouteFailed)
                    audioStages.append(stage)
                    formats[route] = .encoded(stage.format)
                    if let mixed = mixedAliases[route] {
                        stage.feed(mixed)
                        formats[mixed] = .encoded(stage.format)
                    }
                } catch { throw RecorderError(.failed, "cannot open the audio encoder: \(error.message)") }
            case .audio(_, .raw):
                rawAudio.append(route)
                formats[route] = .audio(.standard)
            case .video(.none), .audio(_, .none):
                break
            }
        }
        return EncoderSet(formats: formats, videoStages: videoStages, audioStages: audioStages, rawVideo: rawVideo,
                          rawAudio: rawAudio, slot: slot, frameRate: frameRate)
    }

    /// An audio encoder stage whose packets go to the dispatcher on each route it feeds.
    private static func audioStage(type: SampleBufferType, settings: AudioEncoderSettings, id: String, slot: DispatcherSlot,
                                   onRouteFailed: @escaping @Sendable (SampleRoute, String) -> Void) throws(MediaError) -> AudioEncodeStage {
        try AudioEncodeStage(type: type, settings: settings, id: id,
                             onPacket: { packet, route in slot.push(packet, on: route) },
                             onError: { error, route in onRouteFailed(route, error.message) })
    }

    /// For each encoded track route whose PCM is the whole "mixed" track (exactly one audio
    /// track records), the `.audioMixed` route with the same settings that shares its encoder.
    private static func mixedAliases(in routes: Set<SampleRoute>, singleAudioTrack: SampleBufferType?) -> [SampleRoute: SampleRoute] {
        guard let track = singleAudioTrack else { return [:] }
        var aliases: [SampleRoute: SampleRoute] = [:]
        for route in routes {
            guard case .audio(.audioMixed, .encoded(let settings)) = route, routes.contains(.audio(track, .encoded(settings))) else { continue }
            aliases[.audio(track, .encoded(settings))] = route
        }
        return aliases
    }

    /// Where captured frames go, for the video routes in `wanted`, by route.
    func videoSinks(for wanted: Set<SampleRoute>) -> [SampleRoute: RecordingGraph.VideoSink] {
        var sinks: [SampleRoute: RecordingGraph.VideoSink] = [:]
        for stage in videoStages where wanted.contains(stage.route) {
            sinks[stage.route] = { frame, _, slotNs in stage.submit(frame, slotNs: slotNs) }
        }
        let frameDuration = MediaTime(value: 1, timescale: Int32(frameRate))
        for route in rawVideo where wanted.contains(route) {
            guard let format = formats[route] else { continue }
            let slot = self.slot
            sinks[route] = { frame, broadcastNs, _ in
                let sample = SampleBuffer(type: .video, presentationTime: .nanoseconds(broadcastNs), duration: frameDuration,
                                          formatDescription: format,
                                          payload: .pixels(PixelData(buffer: frame.pixels, planeOffsets: [0], bytesPerRow: [frame.bytesPerRow])),
                                          frameInfo: frame.frameInfo)
                slot.push(sample, on: route)
            }
        }
        return sinks
    }

    /// Where finished PCM blocks of each audio type go, for the audio routes in `wanted`.
    func audioSinks(for wanted: Set<SampleRoute>) -> AudioGraph.Sinks {
        var sinks: AudioGraph.Sinks = [:]
        for stage in audioStages where stage.fedRoutes.contains(where: wanted.contains) {
            sinks[stage.route.type, default: []].append((stage.route, { stage.submit($0) }))
        }
        let slot = self.slot
        for route in rawAudio where wanted.contains(route) {
            sinks[route.type, default: []].append((route, { slot.push($0, on: route) }))
        }
        return sinks
    }
}
