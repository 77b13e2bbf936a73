/// Pixel layouts a handler can ask for when it wants raw frames.
///
/// Only the capture's own layout is offered: converting is the encoder's job, and a handler
/// that wants YUV gets it cheaper from an encoded stream. (A shared converter stage, one per
/// distinct layout, can add layouts here without changing a handler.)
public enum PixelFormat: String, Sendable, Hashable, Codable {
    /// 8-bit B, G, R, unused; one plane, rows of ``PixelData/bytesPerRow`` bytes. What X11
    /// delivers on a 24/32-bit visual, passed on without a copy.
    case bgr0
}

/// Colour range of YUV samples.
public enum ColorRange: String, Sendable, Hashable, Codable {
    /// 16–235 luma (TV/MPEG range); the default for H.264 output.
    case limited
    /// 0–255.
    case full
}

/// The YUV matrix used to derive luma and chroma from RGB.
public enum ColorMatrix: String, Sendable, Hashable, Codable {
    /// ITU-R BT.601.
    case bt601
    /// ITU-R BT.709, the HD matrix.
    case bt709
}

/// Sample layouts of PCM audio.
public enum AudioSampleFormat: String, Sendable, Hashable, Codable {
    /// 32-bit float, channels interleaved.
    case float32Interleaved
    /// 16-bit signed little-endian, channels interleaved.
    case s16Interleaved
}
