/// Describes raw video frames.
public struct VideoFormat: Sendable, Hashable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Pixel layout.
    public var pixelFormat: PixelFormat
    /// Colour range (meaningful for YUV).
    public var colorRange: ColorRange
    /// YUV matrix (meaningful for YUV).
    public var colorMatrix: ColorMatrix

    /// Creates a raw video format.
    public init(width: Int, height: Int, pixelFormat: PixelFormat,
                colorRange: ColorRange = .full, colorMatrix: ColorMatrix = .bt709) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.colorRange = colorRange
        self.colorMatrix = colorMatrix
    }
}

/// Describes PCM audio.
public struct AudioFormat: Sendable, Hashable {
    /// Samples per second per channel.
    public var sampleRate: Int
    /// Channel count (2 for stereo).
    public var channels: Int
    /// Sample layout.
    public var sampleFormat: AudioSampleFormat
    /// Channel layout name in FFmpeg's vocabulary ("mono", "stereo").
    public var channelLayout: String

    /// Creates a PCM audio format.
    public init(sampleRate: Int, channels: Int, sampleFormat: AudioSampleFormat, channelLayout: String? = nil) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.sampleFormat = sampleFormat
        self.channelLayout = channelLayout ?? (channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels)c")
    }

    /// 48 kHz stereo float: the format of every PCM buffer the recorder delivers.
    public static let standard = AudioFormat(sampleRate: 48_000, channels: 2, sampleFormat: .float32Interleaved)

    /// Bytes of one frame (one sample of every channel).
    public var bytesPerFrame: Int { channels * (sampleFormat == .float32Interleaved ? 4 : 2) }
}

/// Codecs of encoded streams.
public enum Codec: String, Sendable, Hashable, Codable, CaseIterable {
    /// H.264 / AVC (libx264 by default). Packets are AVCC (4-byte NAL lengths), extradata an `avcC` record.
    case h264
    /// H.265 / HEVC (libx265 by default). Packets and extradata are Annex B (start codes), as
    /// libx265 emits them; the MP4 and Matroska muxers convert them to `hvcC` form.
    case hevc
    /// AV1 (libsvtav1 by default). Packets are low-overhead OBUs, extradata the sequence header.
    case av1
    /// AAC low complexity (FFmpeg's native `aac`).
    case aac
    /// Opus (libopus), 48 kHz.
    case opus

    /// Whether this is a video codec.
    public var isVideo: Bool { self == .h264 || self == .hevc || self == .av1 }

    /// The libavcodec software encoder RecordKit uses for this codec unless told otherwise.
    public var defaultEncoderName: String {
        switch self {
        case .h264: return "libx264"
        case .hevc: return "libx265"
        case .av1: return "libsvtav1"
        case .aac: return "aac"
        case .opus: return "libopus"
        }
    }
}

/// Describes an encoded stream: enough to set up a muxer without seeing a packet.
public struct EncodedFormat: Sendable, Hashable {
    /// The codec.
    public var codec: Codec
    /// The time base of packet timestamps, as a timescale (`1 / timescale` seconds per unit).
    public var timescale: Int32
    /// Codec-specific configuration ("global header"): avcC for H.264, AudioSpecificConfig for AAC.
    public var extradata: [UInt8]
    /// Average bit rate in bits per second, when known (0 otherwise).
    public var bitRate: Int
    /// Video: width in pixels (0 for audio).
    public var width: Int
    /// Video: height in pixels (0 for audio).
    public var height: Int
    /// Video: nominal frames per second (0 for audio).
    public var frameRate: Int
    /// Audio: sample rate (0 for video).
    public var sampleRate: Int
    /// Audio: channel count (0 for video).
    public var channels: Int
    /// Audio: samples per packet (1024 for AAC; 0 for video).
    public var frameSize: Int

    /// Creates an encoded stream description.
    public init(codec: Codec, timescale: Int32, extradata: [UInt8], bitRate: Int = 0,
                width: Int = 0, height: Int = 0, frameRate: Int = 0,
                sampleRate: Int = 0, channels: Int = 0, frameSize: Int = 0) {
        self.codec = codec
        self.timescale = timescale
        self.extradata = extradata
        self.bitRate = bitRate
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.sampleRate = sampleRate
        self.channels = channels
        self.frameSize = frameSize
    }
}

/// The format of a sample buffer's payload, as `CMFormatDescription`.
public enum FormatDescription: Sendable, Hashable {
    /// Raw frames.
    case video(VideoFormat)
    /// PCM audio.
    case audio(AudioFormat)
    /// Encoded packets.
    case encoded(EncodedFormat)
}
