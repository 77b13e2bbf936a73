/// A rational point or span on the broadcast timeline: `value / timescale` seconds.
///
/// Broadcast time starts at zero when the broadcast starts and excludes paused spans, so it is
/// continuous across pause and resume. Like `CMTime`, it is exact: no floating point is involved
/// until you ask for ``seconds``.
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numerator, in units of `1 / timescale` seconds.
    public var value: Int64
    /// Units per second; always positive.
    public var timescale: Int32

    /// Creates a time of `value / timescale` seconds. `timescale` must be positive.
    public init(value: Int64, timescale: Int32) {
        precondition(timescale > 0, "MediaTime timescale must be positive")
        self.value = value
        self.timescale = timescale
    }

    /// Zero on the nanosecond timescale.
    public static let zero = MediaTime(value: 0, timescale: 1_000_000_000)

    /// A time in nanoseconds.
    public static func nanoseconds(_ ns: Int64) -> MediaTime { MediaTime(value: ns, timescale: 1_000_000_000) }

    /// The time in seconds, as a floating-point approximation.
    public var seconds: Double { Double(value) / Double(timescale) }

    /// The time in nanoseconds (the fraction of a nanosecond dropped, toward zero). A time
    /// beyond what 64-bit nanoseconds hold (an encoder's "no timestamp", `Int64.min`) saturates
    /// to `Int64.min` or `Int64.max` instead of trapping: one bad timestamp must not take the
    /// recording down.
    public var nanoseconds: Int64 {
        let (q, r) = value.quotientAndRemainder(dividingBy: Int64(timescale))
        let (whole, overflow) = q.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, overflowSum) = whole.addingReportingOverflow(r * 1_000_000_000 / Int64(timescale))
        if overflow || overflowSum { return value < 0 ? .min : .max }
        return sum
    }

    /// The same instant expressed on another timescale, rounded to the nearest unit.
    public func converted(to newTimescale: Int32) -> MediaTime {
        if newTimescale == timescale { return self }
        // value * new / old, rounded to nearest, in 128-bit intermediate arithmetic.
        let old = Int64(timescale)
        let product = value.multipliedFullWidth(by: Int64(newTimescale))
        let (q, r) = old.dividingFullWidth(product)
        let rounded = 2 * r.magnitude >= old.magnitude ? q + (value < 0 ? -1 : 1) : q
        return MediaTime(value: rounded, timescale: newTimescale)
    }

    /// Whether `lhs` is earlier than `rhs`, compared exactly across timescales.
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        lhs.value.multipliedFullWidth(by: Int64(rhs.timescale)) < rhs.value.multipliedFullWidth(by: Int64(lhs.timescale))
    }

    /// Whether both name the same instant, compared exactly across timescales (1/2 == 15/30).
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        lhs.value.multipliedFullWidth(by: Int64(rhs.timescale)) == rhs.value.multipliedFullWidth(by: Int64(lhs.timescale))
    }

    /// Hashes the instant (equal times on different timescales hash alike).
    public func hash(into hasher: inout Hasher) { hasher.combine(nanoseconds) }

    /// `value/timescale`, for example `15/30`.
    public var description: String { "\(value)/\(timescale)" }
}
