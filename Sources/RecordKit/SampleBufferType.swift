/// What a sample buffer carries, as ReplayKit's `RPSampleBufferType`.
public enum SampleBufferType: String, Sendable, Hashable, CaseIterable, Codable {
    /// Screen pixels (raw frames or encoded video packets).
    case video
    /// Application audio: the monitor of a sink, or one application's sink input.
    case audioApp
    /// Microphone audio: a PulseAudio source.
    case audioMic
    /// Application and microphone audio mixed into one track, for outputs that carry one
    /// audio track (FLV/RTMP). Only delivered to handlers that ask for it.
    case audioMixed
    /// The camera as its own video track (`--camera-track`): raw frames or encoded packets at
    /// the camera's own size, on the recording's timeline and frame grid (one frame per screen
    /// frame slot; black while the camera is switched off). Only recordings with a camera track
    /// have it, and only handlers whose ``HandlerInput/camera`` asks for it get it.
    case camera
}
