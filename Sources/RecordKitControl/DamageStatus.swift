/// What damage-driven capture saved, for `recordctl status`: on a still screen ``grabs`` and
/// ``conversions`` stay near zero while frames keep flowing.
package struct DamageStatus: Sendable, Codable, Equatable {
    /// Whether capture is damage-driven (false: the X server lacks DAMAGE; every tick grabs everything).
    package var tracking: Bool = false
    /// `constant` or `variable` (``FrameRateMode``).
    package var frameRateMode: String = "constant"
    /// Pixel requests sent to the X server (a damaged rectangle or a full frame each).
    package var grabs: Int64 = 0
    /// Pixels grabbed from the X server.
    package var grabbedPixels: Int64 = 0
    /// Pixels the X server reported damaged inside the captured area.
    package var damagedPixels: Int64 = 0
    /// Ticks with nothing changed (nothing grabbed).
    package var unchangedTicks: Int64 = 0
    /// Frames delivered that repeat the previous picture.
    package var repeatedFrames: Int64 = 0
    /// BGR0→yuv420p conversions that converted something, summed over the H.264 encoders.
    package var conversions: Int64 = 0
    /// Picture rows converted, summed over the H.264 encoders (a full frame counts its height).
    package var convertedRows: Int64 = 0
    /// Frames given to the video encoders, summed over them. In constant frame rate with skip
    /// splicing a still screen gives them about one frame in twelve.
    package var encodedFrames: Int64 = 0
    /// Unchanged frame slots filled without an encode, summed over the video encoders: a
    /// spliced skip picture (constant frame rate into files), or a still screen's picture
    /// coded once and shown again (variable frame rate into files, libx264).
    package var skippedFrames: Int64 = 0

    /// Creates an empty status.
    package init() {}
}
