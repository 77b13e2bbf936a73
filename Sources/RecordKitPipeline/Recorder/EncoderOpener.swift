import RecordKit
import RecordKitCapture

/// Opens the encoders of the routes an output attached to a running capture is the first to
/// want, with the same rules the graph was built by (``RecordingGraphBuilder``): at variable
/// frame rate a route with a live consumer encodes with low delay and one whose consumer stores
/// what it gets is drained on a still screen; at constant frame rate the latter splices skips.
/// A route already running is shared as it runs, whatever the new output would have chosen.
///
/// Threading: called on the recorder's control queue.
struct EncoderOpener: Sendable {
    let capture: any VideoSource
    let frameRate: Int
    let variableFrameRate: Bool
    let lowDelayForEveryRoute: Bool
    let singleAudioTrack: SampleBufferType?
    let slot: DispatcherSlot
    let onRouteFailed: @Sendable (SampleRoute, String) -> Void
    let onOverload: @Sendable (String) -> Void

    /// What opening routes for one output gave: the encoders, and the dispatcher holds of their routes.
    struct Opened {
        let encoders: EncoderSet
        let longerHolds: [SampleRoute: UInt64]
        let shorterHolds: [SampleRoute: UInt64]
    }

    /// Opens an encoder for every encoded route in `routes` for an output that `live`ly watches
    /// what it gets (not ``HandlerInput/toleratesEncoderDelay``).
    func open(_ routes: Set<SampleRoute>, live: Bool) throws(RecorderError) -> Opened {
        let lowDelay: Set<SampleRoute> = variableFrameRate && (live || lowDelayForEveryRoute) ? routes : []
        let splice: Set<SampleRoute> = !variableFrameRate && !live ? Set(routes.filter { $0.type != .camera }) : []
        let drain: Set<SampleRoute> = variableFrameRate ? routes.subtracting(lowDelay) : []
        let encoders = try EncoderSet.open(routes: routes, capture: capture, frameRate: frameRate, slot: slot,
                                           lowDelayRoutes: lowDelay, spliceRoutes: splice, drainRoutes: drain,
                                           singleAudioTrack: singleAudioTrack, onRouteFailed: onRouteFailed, onOverload: onOverload)
        return Opened(encoders: encoders, longerHolds: RecordingGraphBuilder.holds(for: splice),
                      shorterHolds: Dictionary(uniqueKeysWithValues: drain.map { ($0, UInt64(250_000_000)) }))
    }
}
