/// The capture schedule: tick `n` is due at `start + n / fps` on `CLOCK_MONOTONIC`.
///
/// Deadlines are absolute, so sleeping late once does not shift later ticks (no drift). A tick
/// found late by up to ``catchUpPeriods`` periods is still grabbed, at once: the encoder places
/// every frame in the slot of its tick's due time, so a short stall (a busy core) costs no
/// frame. A tick later than that is not grabbed in a burst with the ones after it: the clock
/// jumps to the latest tick already due and reports how many it skipped.
struct TickClock {
    /// `CLOCK_MONOTONIC` nanoseconds of tick 0.
    let start: UInt64
    /// Ticks per second (at least 1).
    let framesPerSecond: UInt64

    /// A schedule starting at `start` with `framesPerSecond` ticks per second (clamped to 1...240).
    init(start: UInt64, framesPerSecond: Int) {
        self.start = start
        self.framesPerSecond = UInt64(min(max(framesPerSecond, 1), 240))
    }

    /// How many periods late a tick may be and still be grabbed (100 ms at 30 fps).
    static let catchUpPeriods: UInt64 = 3

    /// One period in nanoseconds (rounded down).
    var period: UInt64 { 1_000_000_000 / framesPerSecond }

    /// When tick `tick` is due.
    func deadline(of tick: Int64) -> UInt64 {
        start + UInt64(tick) * 1_000_000_000 / framesPerSecond
    }

    /// The tick to run next when `tick` is the next one in order and the time is `now`: `tick`
    /// itself unless it is late by more than ``catchUpPeriods`` periods, else the latest tick already due.
    /// `skipped` counts the ticks jumped over.
    func next(after tick: Int64, now: UInt64) -> (tick: Int64, skipped: Int64) {
        let due = deadline(of: tick)
        guard now > due, now - due > period * Self.catchUpPeriods else { return (tick, 0) }
        let current = Int64((now - start) * framesPerSecond / 1_000_000_000)
        return current > tick ? (current, current - tick) : (tick, 0)
    }
}
