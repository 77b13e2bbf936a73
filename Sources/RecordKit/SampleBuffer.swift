/// One timestamped unit of media on the broadcast timeline, as ReplayKit's `CMSampleBuffer`.
///
/// A sample buffer is immutable and `Sendable`: the dispatcher hands the same instance to
/// every handler that asked for it, with no copy. Its memory lives as long as the instance.
public final class SampleBuffer: Sendable {
    /// Which stream this sample belongs to.
    public let type: SampleBufferType
    /// Presentation time on the broadcast timeline (zero at start, paused spans cut).
    public let presentationTime: MediaTime
    /// Duration, when known (one frame period, or the length of the audio chunk).
    public let duration: MediaTime
    /// Format of ``payload``.
    public let formatDescription: FormatDescription
    /// The media itself.
    public let payload: Payload
    /// For raw video frames: whether and where the picture changed since the previous frame
    /// (``VideoFrameInfo``); nil for other samples, or when the source does not know.
    public let frameInfo: VideoFrameInfo?

    /// The content of a sample buffer.
    public enum Payload: Sendable {
        /// Raw pixels.
        case pixels(PixelData)
        /// PCM audio.
        case pcm(PCMData)
        /// One encoded packet.
        case packet(EncodedPacket)
    }

    /// Creates a sample buffer. Used by the recorder and by tests; handlers only read them.
    public init(type: SampleBufferType, presentationTime: MediaTime, duration: MediaTime,
                formatDescription: FormatDescription, payload: Payload, frameInfo: VideoFrameInfo? = nil) {
        self.frameInfo = frameInfo
        self.type = type
        self.presentationTime = presentationTime
        self.duration = duration
        self.formatDescription = formatDescription
        self.payload = payload
    }

    /// The time that orders this sample on the timeline: the decode time of an encoded packet,
    /// the presentation time otherwise. Per sample type it never decreases from call to call.
    public var timelineTime: MediaTime {
        if case .packet(let p) = payload { return p.decodeTime }
        return presentationTime
    }
}

/// Raw pixels of one frame, possibly in several planes.
public struct PixelData: Sendable {
    /// The memory that holds every plane.
    public let buffer: MediaBuffer
    /// Byte offset of each plane in ``buffer``.
    public let planeOffsets: [Int]
    /// Bytes per row of each plane.
    public let bytesPerRow: [Int]

    /// Describes planes laid out inside `buffer`.
    public init(buffer: MediaBuffer, planeOffsets: [Int], bytesPerRow: [Int]) {
        self.buffer = buffer
        self.planeOffsets = planeOffsets
        self.bytesPerRow = bytesPerRow
    }
}

/// PCM audio: ``frameCount`` frames in the sample buffer's ``AudioFormat``.
public struct PCMData: Sendable {
    /// The interleaved samples.
    public let buffer: MediaBuffer
    /// Number of frames (samples per channel).
    public let frameCount: Int
    /// Index of the first frame since the broadcast started, counting every frame ever
    /// delivered on this track (paused spans excluded). Consecutive buffers are contiguous.
    ///
    /// The count is the receiving handler's own: a handler attached to a recording that was
    /// already running gets 0 for its first buffer, as one that started with the recording
    /// does, and a handler paused on its own continues its count where it stopped. (Its
    /// ``SampleBuffer/presentationTime`` is on its own time as well, where its first video key
    /// frame is zero, so its first buffer may start a fraction of a buffer after zero.)
    public let startFrame: Int64

    /// Describes PCM in `buffer`.
    public init(buffer: MediaBuffer, frameCount: Int, startFrame: Int64) {
        self.buffer = buffer
        self.frameCount = frameCount
        self.startFrame = startFrame
    }
}

/// One encoded packet (an access unit of H.264, a frame of AAC).
public struct EncodedPacket: Sendable {
    /// The bitstream bytes (H.264 in length-prefixed AVCC form, AAC raw).
    public let data: MediaBuffer
    /// Decode timestamp; never decreases within a stream.
    public let decodeTime: MediaTime
    /// Whether a decoder can start here (an IDR picture for H.264; always true for AAC).
    public let isKeyFrame: Bool
    /// Identifies the encoder that produced the packet; packets of one encoder share it.
    public let encoderID: String

    /// Describes an encoded packet.
    public init(data: MediaBuffer, decodeTime: MediaTime, isKeyFrame: Bool, encoderID: String) {
        self.data = data
        self.decodeTime = decodeTime
        self.isKeyFrame = isKeyFrame
        self.encoderID = encoderID
    }
}
