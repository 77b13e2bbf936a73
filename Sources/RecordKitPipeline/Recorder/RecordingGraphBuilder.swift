import Dispatch
import Glibc
import RecordKit
import RecordKitCapture
import RecordKitMedia
import RecordKitSupport
import Synchronization

/// Builds a ``RecordingGraph`` in the order that lets every handler know its streams' formats
/// when it starts: capture and audio first (which streams exist), then one encoder per distinct
/// route (their formats, global headers included), then each handler's
/// `broadcastStarted` with those formats, then the dispatcher. Whatever was opened is closed
/// again when a step fails.
struct RecordingGraphBuilder {
    let configuration: RecordingConfiguration
    let registrations: [HandlerRegistration]
    let timeline: Timeline
    /// Called for a non-fatal problem found while building (an audio source missing).
    let warn: @Sendable (String) -> Void
    /// Called once per video encoder that falls behind and starts dropping frames, while recording.
    let onOverload: @Sendable (String) -> Void
    /// Called when a handler ends with an error while recording.
    let onHandlerEnded: @Sendable (HandlerRunner, BroadcastError) -> Void
    /// Called when an encoder fails: every handler of its route is ended.
    let onRouteFailed: @Sendable (SampleRoute, String) -> Void
    /// Called when a handler publishes a new `state` (``HandlerStateEvent``).
    var onHandlerState: (@Sendable (HandlerRunner, [String: String]) -> Void)? = nil
    /// What handler contexts offer as ``BroadcastControlling``.
    var controlLink: RecordingControlLink? = nil
    /// Called for each event a handler sends (``BroadcastContext/publish(event:)``).
    var onHandlerEvent: (@Sendable (HandlerRunner, BroadcastEvent) -> Void)? = nil

    /// Opens and wires every part; throws without leaving anything running.
    func build() throws(RecorderError) -> RecordingGraph {
        let capture: any VideoSource
        do throws(CaptureError) { capture = try Self.openVideo(configuration) } catch { throw error.recorderError }
        let audio = AudioSourceRegistry.open(configuration.audioRequest, warn: warn)
        var keep = false
        defer {
            if !keep {
                capture.stop()
                audio.close()
            }
        }
        let audioTypes: [SampleBufferType]
        do throws(CaptureError) { audioTypes = try audio.tracks() } catch { throw error.recorderError }
        var available: Set<SampleBufferType> = [.video]
        available.formUnion(audioTypes)
        if !audioTypes.isEmpty { available.insert(.audioMixed) }
        if (capture as? CameraOverlaySource)?.trackSize != nil { available.insert(.camera) }

        // Routes per handler, with video encodes shared where a handler allows it.
        let inputs = VideoEncodeSharing.apply(to: registrations.map(\.handler.input))
        let routesPerHandler = inputs.map { SampleRoute.routes(for: $0, available: available) }

        // One encoder per distinct route, opened now so that handlers learn their formats at start.
        // Skips are spliced only into video that no live consumer waits for: a spliced route holds pictures back.
        // At variable frame rate only live routes encode with low delay; a route whose every
        // consumer stores what it gets (a file) keeps x264's look-ahead, B-frames and mbtree, and
        // is drained on a still screen (the same quality for about 0.55 of the bits; docs/ENCODING.md).
        let allRoutes = Set(routesPerHandler.flatMap { $0 })
        let liveRoutes = Set(zip(inputs, routesPerHandler).filter { !$0.0.toleratesEncoderDelay }.flatMap { $0.1 })
        let variable = configuration.screen.frameRateMode == .variable
        // The camera track changes every frame: nothing to splice, and never held back for it.
        let spliceRoutes: Set<SampleRoute> = variable ? [] : Set(allRoutes.subtracting(liveRoutes).filter { $0.type != .camera })
        let lowDelayRoutes = !variable ? [] : Self.lowDelayForEveryRoute ? allRoutes : liveRoutes
        let drainRoutes = variable ? allRoutes.subtracting(lowDelayRoutes) : []
        let slot = DispatcherSlot()
        let encoders = try EncoderSet.open(routes: allRoutes, capture: capture,
                                           frameRate: configuration.screen.framesPerSecond, slot: slot,
                                           lowDelayRoutes: lowDelayRoutes, spliceRoutes: spliceRoutes, drainRoutes: drainRoutes,
                                           singleAudioTrack: audioTypes.count == 1 ? audioTypes.first : nil,
                                           onRouteFailed: onRouteFailed,
                                           onOverload: onOverload)

        var runners: [HandlerRunner] = []
        var contexts: [HandlerContext] = []
        var refusals: [(name: String, error: BroadcastError)] = []
        for (registration, routes) in zip(registrations, routesPerHandler) {
            let runner = HandlerRunner(name: registration.name, handler: registration.handler, routes: Set(routes),
                                       limits: HandlerRunner.Limits(video: registration.maxQueuedVideo),
                                       onServiceState: onHandlerState, onEvent: onHandlerEvent, onEnded: onHandlerEnded)
            var formats: [SampleBufferType: FormatDescription] = [:]
            for route in routes { formats[route.type] = encoders.formats[route] }
            let context = HandlerContext(runner: runner, formats: formats, workingDirectory: registration.workingDirectory,
                                         controlLink: controlLink)
            do {
                try runner.start(setupInfo: registration.setupInfo, context: context)
                runners.append(runner)
                contexts.append(context)
            } catch {
                refusals.append((registration.name, error as? BroadcastError ?? BroadcastError(.internalError, "\(error)")))
            }
        }
        // The user asked for every one of these outputs: one that refuses (a bad path, a
        // malformed URL) stops the start, and those that accepted delete what they opened.
        if let refusal = refusals.first {
            for context in contexts { context.markDiscarding() }
            let group = DispatchGroup()
            for runner in runners {
                group.enter()
                runner.finish { group.leave() }
            }
            group.wait()
            let kind: RecorderError.Kind = refusal.error.kind == .outputFailed ? .cannotCreateOutput
                : refusal.error.kind == .invalidSetup ? .badArgument : .failed
            throw RecorderError(kind, refusals.map { "\($0.name): \($0.error.message)" }.joined(separator: "; "))
        }
        guard !runners.isEmpty else { throw RecorderError(.badArgument, "no handler to record into") }

        // A spliced stream reaches its handlers up to a GOP (plus x264's look-ahead) late on a still
        // screen; their audio waits that long for it, so they still get one timeline order.
        // Drained routes' handlers hold samples a quarter of a second only: their video comes in
        // bursts at each drain, and audio held for it kept a file's fragments (cut at key frames,
        // written once the muxer has audio past them) seconds behind; a kill -9 4 s into a still
        // recording left 1.5 s of audio (measured). `Muxer` orders the late video itself.
        let dispatcher = Dispatcher(runners: runners, longerHolds: Self.holds(for: spliceRoutes),
                                    shorterHolds: Dictionary(uniqueKeysWithValues: drainRoutes.map { ($0, UInt64(250_000_000)) }))
        slot.connect(dispatcher)
        let wanted = dispatcher.routes
        let audioGraph = AudioGraph(timeline: timeline, tracks: audioTypes, sinks: encoders.audioSinks(for: wanted),
                                    mutedAtStart: configuration.mutedAtStart)
        audio.deliver { type, samples, frames, captureNs in
            audioGraph.deliver(type, samples: samples, frameCount: frames, captureNs: captureNs)
        }
        keep = true
        let opener = EncoderOpener(capture: capture, frameRate: configuration.screen.framesPerSecond, variableFrameRate: variable,
                                   lowDelayForEveryRoute: Self.lowDelayForEveryRoute,
                                   singleAudioTrack: audioTypes.count == 1 ? audioTypes.first : nil, slot: slot,
                                   onRouteFailed: onRouteFailed, onOverload: onOverload)
        let parts = RecordingGraph.Parts(
            videoStages: encoders.videoStages.filter { wanted.contains($0.route) },
            audioStages: encoders.audioStages.filter { $0.fedRoutes.contains(where: wanted.contains) },
            contexts: contexts, videoSinks: encoders.videoSinks(for: wanted),
            formats: encoders.formats)
        return RecordingGraph(capture: capture, camera: capture as? CameraOverlaySource, audio: audio, audioTracks: audioTypes, audioGraph: audioGraph,
                              dispatcher: dispatcher, encoderOpener: opener, parts: parts)
    }
}

/// Lets encoder stages, opened before the dispatcher exists, hand their packets to it: bound
/// once before capture starts; a packet before that (there are none) would be dropped.
typealias DispatcherSlot = LateBound<Dispatcher>

extension LateBound where Value == Dispatcher {
    /// Connects the dispatcher; called once before capture starts.
    func connect(_ dispatcher: Dispatcher) { bind(dispatcher) }

    /// Hands `sample` of `route` to the dispatcher.
    func push(_ sample: SampleBuffer, on route: SampleRoute) { current?.push(sample, on: route) }
}

extension RecordingGraphBuilder {
    /// The screen source, with the camera composited into it when the configuration asks
    /// (``CameraOverlaySource``: the screen then runs at constant frame rate and the overlay
    /// applies the recording's mode).
    static func openVideo(_ configuration: RecordingConfiguration) throws(CaptureError) -> any VideoSource {
        // A recording that pauses while its window is hidden records nothing of it hidden, not
        // even the ticks before the pause takes effect.
        var screenConfiguration = configuration.screen
        screenConfiguration.skipsHiddenWindow = (configuration.pauseOnBackground ?? .default) != .never
        guard let request = configuration.camera else { return try VideoSourceRegistry.open(screenConfiguration) }
        let camera = try CameraSourceRegistry.open(request.name, framesPerSecond: configuration.screen.framesPerSecond)
        screenConfiguration.frameRateMode = .constant
        let screen: any VideoSource
        do throws(CaptureError) { screen = try VideoSourceRegistry.open(screenConfiguration) } catch {
            camera.stop()
            throw error
        }
        do throws(CaptureError) {
            return try CameraOverlaySource(screen: screen, camera: camera, placement: request.track ? nil : request.placement,
                                           mode: configuration.screen.frameRateMode, enabled: !request.offAtStart)
        } catch {
            screen.stop()
            camera.stop()
            throw error
        }
    }

    /// Whether every route of a variable-frame-rate recording encodes with low delay, as files
    /// did before they got look-ahead: `RECORDKIT_LOW_DELAY_FILES=1` (A/B measurements with
    /// scripts/benchmark-rd.py, or a file that must reach the disk within a frame of capture).
    /// By default (unset or `0`) a route whose every consumer stores what it gets (a file) keeps
    /// x264's look-ahead and B-frames (docs/ENCODING.md, "Quality per bit"); its last picture
    /// ends at the recording's end (``MP4TrackTable/presentationEnd``) and a kill -9 keeps the
    /// file up to its latest key frame (``FileWriter``).
    static var lowDelayForEveryRoute: Bool {
        guard let value = getenv("RECORDKIT_LOW_DELAY_FILES") else { return false }
        return String(cString: value) == "1"
    }

    /// How long the handlers of each spliced video route may wait for its video: the key frame
    /// interval, when ``StillRunEncoder`` drains x264, plus a second for its look-ahead.
    static func holds(for routes: Set<SampleRoute>) -> [SampleRoute: UInt64] {
        var holds: [SampleRoute: UInt64] = [:]
        for route in routes {
            guard case .video(.encoded(let settings)) = route else { continue }
            holds[route] = UInt64((settings.keyFrameIntervalSeconds + 1) * 1_000_000_000)
        }
        return holds
    }
}
