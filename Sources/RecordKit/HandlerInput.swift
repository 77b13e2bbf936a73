/// What a handler wants to receive for the video stream.
public enum VideoInput: Sendable, Hashable {
    /// No video.
    case none
    /// Raw frames converted to this pixel format (at the capture size).
    case raw(PixelFormat)
    /// H.264 packets from a shared encoder with these settings.
    case encoded(VideoEncoderSettings)
}

/// What a handler wants to receive for one audio stream.
public enum AudioInput: Sendable, Hashable {
    /// Nothing.
    case none
    /// PCM in ``AudioFormat/standard``.
    case raw
    /// AAC packets from a shared encoder with these settings.
    case encoded(AudioEncoderSettings)
}

/// The input a handler declares: the pipeline encodes once per distinct setting and fans the
/// same packets out to every handler that asked for them.
public struct HandlerInput: Sendable, Hashable {
    /// The video stream.
    public var video: VideoInput
    /// Application audio (``SampleBufferType/audioApp``).
    public var appAudio: AudioInput
    /// Microphone audio (``SampleBufferType/audioMic``).
    public var micAudio: AudioInput
    /// App and mic mixed into one track (``SampleBufferType/audioMixed``).
    public var mixedAudio: AudioInput
    /// The camera's own video track (``SampleBufferType/camera``), when the recording has one
    /// (`--camera-track`): raw frames or encoded at the camera's size (a `width`/`height` in
    /// the settings is ignored). Default none: outputs that carry one video stream (RTMP, SRT,
    /// the preview) leave it out.
    public var camera: VideoInput = .none
    /// Whether this handler takes, instead of ``video``'s own settings, the encoded video
    /// another handler of the same recording asks for (OBS's "same as stream"), so that a file
    /// and a stream cost one encoder. Applies only when ``video`` is
    /// ``VideoInput/encoded(_:)`` and another handler asks for encoded video without sharing;
    /// the settings actually used are in ``BroadcastContext/formats``.
    public var sharesVideoEncode: Bool = false
    /// Whether this handler only stores what it gets (a file, a replay buffer) and does not
    /// mind encoded video arriving seconds after it was captured. When every handler of an
    /// encoded video stream says so, a variable-frame-rate recording keeps x264's look-ahead,
    /// B-frames and mbtree for it (about 0.7x the bits at the same quality), and a
    /// constant-frame-rate recording feeds its encoder only the pictures that changed and fills
    /// the other frame slots with spliced skip pictures: on a still screen the encoder then
    /// holds a picture until the next few arrive, up to a few seconds. A live consumer (a
    /// stream, a preview) keeps the default, false, and gets every frame as soon as it is
    /// encoded. Only ``VideoInput/encoded(_:)`` with H.264 from libx264 is affected.
    public var toleratesEncoderDelay: Bool = false

    /// Creates an input declaration.
    public init(video: VideoInput, appAudio: AudioInput = .none, micAudio: AudioInput = .none,
                mixedAudio: AudioInput = .none) {
        self.video = video
        self.appAudio = appAudio
        self.micAudio = micAudio
        self.mixedAudio = mixedAudio
    }

    /// H.264 (file defaults) plus app and mic audio as two AAC tracks: what a file wants.
    public static let encodedFile = HandlerInput(
        video: .encoded(.fileDefault), appAudio: .encoded(.standard), micAudio: .encoded(.standard))
}
