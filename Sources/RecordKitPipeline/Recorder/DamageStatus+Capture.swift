import RecordKitCapture
import RecordKitControl

/// Filling ``DamageStatus`` (a control-protocol value, RecordKitControl) from the capture's counters.
extension DamageStatus {
    /// The capture's counters and the encoders' conversion, encode and skip counts.
    init(statistics: ScreenCaptureStatistics, mode: FrameRateMode, conversions: Int64, convertedRows: Int64,
         encodedFrames: Int64 = 0, skippedFrames: Int64 = 0) {
        self.init()
        tracking = statistics.damageTracking
        frameRateMode = mode.rawValue
        grabs = statistics.grabs
        grabbedPixels = statistics.grabbedPixels
        damagedPixels = statistics.damagedPixels
        unchangedTicks = statistics.unchangedTicks
        repeatedFrames = statistics.repeatedFrames
        self.conversions = conversions
        self.convertedRows = convertedRows
        self.encodedFrames = encodedFrames
        self.skippedFrames = skippedFrames
    }
}
