import RecordCtlSupport
import RecordKitControl

/// The `recordctl status` line for damage-driven capture.
enum DamageStatusLine {
    /// `damage: variable frame rate, 3 grabs (2.1 Mpx), 1.0 Mpx damaged, 290 unchanged ticks, 9 repeats, 2 conversions (1096 rows), 300 encoded, 0 skips`.
    static func text(_ d: DamageStatus) -> String {
        func mpx(_ pixels: Int64) -> String { String(format: "%.1f Mpx", Double(pixels) / 1e6) }
        return "damage: \(d.tracking ? "" : "untracked, ")\(d.frameRateMode) frame rate, \(d.grabs) grabs (\(mpx(d.grabbedPixels))), "
            + "\(mpx(d.damagedPixels)) damaged, \(d.unchangedTicks) unchanged ticks, \(d.repeatedFrames) repeats, "
            + "\(d.conversions) conversions (\(d.convertedRows) rows), \(d.encodedFrames) encoded, \(d.skippedFrames) skips"
    }
}
