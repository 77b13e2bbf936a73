/// What damage-driven capture saved, for `recordctl status`: on a still screen ``grabs`` and
/// ``conversions`` stay near zero while frames keep flowing.
public struct DamageStatus: Sendable, Codable, Equatable {
    /// Whether capture is damage-driven (false: the X server lacks DAMAGE; every tick grabs everything).
    public var tracking: Bool = false
    /// `constant` or `variable` (``FrameRateMode``).
    public var frameRateMode: String = "constant"
    /// Pixel requests sent to the X server (a damaged rectangle or a full frame each).
    public var grabs: Int64 = 0
    /// Pixels grabbed from the X server.
    public var grabbedPixels: Int64 = 0
    /// Pixels the X server reported damaged inside the captured area.
    public var damagedPixels: Int64 = 0
    /// Ticks with nothing changed (nothing grabbed).
    public var unchangedTicks: Int64 = 0
    /// Frames delivered that repeat the previous picture.
    public var repeatedFrames: Int64 = 0
    /// BGR0→yuv420p conversions that converted something, summed over the H.264 encoders.
    public var conversions: Int64 = 0
    /// Picture rows converted, summed over the H.264 encoders (a full frame counts its height).
    public var convertedRows: Int64 = 0
    /// Frames given to the video encoders, summed over them. In constant frame rate with skip
    /// splicing a still screen gives them about one frame in twelve.
    public var encodedFrames: Int64 = 0
    /// Unchanged frame slots filled with a spliced skip picture instead of an encode, summed
    /// over the video encoders (constant frame rate into files only).
    public var skippedFrames: Int64 = 0

    /// Creates an empty status.
    public init() {}
}
