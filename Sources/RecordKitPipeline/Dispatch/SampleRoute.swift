import RecordKit

/// One distinct stream the pipeline produces: a sample type in one form (raw, or encoded with
/// given settings). Handlers that want the same route share the very same sample buffers.
package enum SampleRoute: Hashable, Sendable, CustomStringConvertible {
    /// Video in the given form.
    case video(VideoInput)
    /// The camera's own video track in the given form (``SampleBufferType/camera``).
    case camera(VideoInput)
    /// An audio track (`.audioApp`, `.audioMic` or `.audioMixed`) in the given form.
    case audio(SampleBufferType, AudioInput)

    /// The routes a handler input asks for, given which sample types the recording has.
    static func routes(for input: HandlerInput, available: Set<SampleBufferType>) -> [SampleRoute] {
        var routes: [SampleRoute] = []
        if input.video != .none, available.contains(.video) { routes.append(.video(input.video)) }
        if input.camera != .none, available.contains(.camera) { routes.append(.camera(Self.atCameraSize(input.camera))) }
        for (type, form) in [(SampleBufferType.audioApp, input.appAudio), (.audioMic, input.micAudio), (.audioMixed, input.mixedAudio)]
        where form != .none && available.contains(type) {
            routes.append(.audio(type, form))
        }
        return routes
    }

    /// `form` without an output size: the camera track is encoded at the camera's own size.
    static func atCameraSize(_ form: VideoInput) -> VideoInput {
        guard case .encoded(var settings) = form else { return form }
        settings.width = nil
        settings.height = nil
        return .encoded(settings)
    }

    /// The sample type this route carries.
    package var type: SampleBufferType {
        switch self {
        case .video: return .video
        case .camera: return .camera
        case .audio(let t, _): return t
        }
    }

    package var description: String {
        switch self {
        case .video(.raw(let f)): return "video/raw-\(f.rawValue)"
        case .video(.encoded(let s)): return "video/\(s.codec.rawValue)-\(s.resolvedEncoderName)-\(s.preset)-\(s.rateControl)"
        case .video(.none): return "video/none"
        case .camera(let form): return "camera-" + SampleRoute.video(form).description
        case .audio(let t, .raw): return "\(t.rawValue)/pcm"
        case .audio(let t, .encoded(let s)): return "\(t.rawValue)/\(s.codec.rawValue)-\(s.bitRate)"
        case .audio(let t, .none): return "\(t.rawValue)/none"
        }
    }
}
