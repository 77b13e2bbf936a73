import Glibc

/// Now on CLOCK_MONOTONIC, in seconds: the clock the recorder stamps frames with.
func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// `t` as `SECONDS.NANOSECONDS`, nine digits after the point.
func formatTime(_ t: Double) -> String {
    let sec = t.rounded(.down)
    let nsec = Int((t - sec) * 1e9)
    var frac = String(nsec)
    frac = String(repeating: "0", count: max(0, 9 - frac.count)) + frac
    return "\(Int(sec)).\(frac)"
}
