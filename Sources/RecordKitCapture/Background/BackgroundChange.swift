/// A transition reported by ``BackgroundMonitor``: only changes are reported, never repeats.
package enum BackgroundChange: Sendable, Equatable {
    /// Recording should pause (or stay paused) for `reason`. Also sent, without a
    /// ``foreground(previous:)`` in between, when the reason changes while in the background.
    case background(BackgroundReason)
    /// Recording may resume: no reason holds any more. `previous` is the reason that ended.
    case foreground(previous: BackgroundReason)
    /// The recorded window was destroyed. Sent once; the monitor reports nothing after it.
    case windowDestroyed

    /// The change from `old` to `new` (each nil when in the foreground), or nil when nothing changed.
    init?(from old: BackgroundReason?, to new: BackgroundReason?) {
        switch (old, new) {
        case (nil, nil):
            return nil
        case (let old?, nil):
            self = .foreground(previous: old)
        case (_, let new?):
            guard new != old else { return nil }
            self = .background(new)
        }
    }
}
