import Glibc

/// `CLOCK_MONOTONIC`, the one clock of RecordKit's timeline: capture times, deadlines,
/// timeouts and rates are all read from it (never the wall clock, which jumps). Any thread.
package enum MonotonicClock {
    /// Nanoseconds since an arbitrary point (boot); never decreases.
    package static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The same clock in seconds.
    package static func seconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
