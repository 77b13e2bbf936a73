import Foundation
import Synchronization

/// A token bucket for `--upload-rate`: ``consume(_:)`` sleeps the calling (upload) thread until
/// the bytes fit in the rate. Granularity is one piece (a part), so the rate holds on average
/// over a few parts, not within one. Nil rate: no limit. Thread-safe.
package final class RateLimiter: Sendable {
    private let state: Mutex<(rate: Double?, next: Double)>

    /// A limiter of `bytesPerSecond` (nil: unlimited).
    package init(bytesPerSecond: Double?) {
        state = Mutex((bytesPerSecond, 0))
    }

    /// Changes the rate.
    package func set(bytesPerSecond: Double?) { state.withLock { $0.rate = bytesPerSecond } }

    /// Waits until `bytes` may be sent (blocking).
    package func consume(_ bytes: Int) {
        let wait: Double = state.withLock { s in
            guard let rate = s.rate, rate > 0 else { return 0 }
            let now = Date().timeIntervalSinceReferenceDate
            let start = max(now, s.next)
            s.next = start + Double(bytes) / rate
            return start - now
        }
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
    }

    /// Parses `--upload-rate`: a number of bytes per second with an optional `K`, `M` or `G`
    /// suffix (powers of 1024) and an optional `B/s` or `/s`; e.g. `20M`, `512KB/s`.
    package static func parse(_ text: String) -> Double? {
        var t = text.trimmingCharacters(in: .whitespaces).uppercased()
        for suffix in ["B/S", "/S", "B"] where t.hasSuffix(suffix) { t.removeLast(suffix.count); break }
        var multiplier = 1.0
        if let last = t.last, let m = ["K": 1024.0, "M": 1024.0 * 1024, "G": 1024.0 * 1024 * 1024][String(last)] {
            multiplier = m
            t.removeLast()
        }
        guard let v = Double(t), v > 0, v.isFinite else { return nil }
        return v * multiplier
    }
}
