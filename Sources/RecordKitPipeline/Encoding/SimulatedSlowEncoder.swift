import Foundation

/// Fault injection for the overload tests (docs/TESTING.md, "Overload"): with
/// `RECORDKIT_TEST_ENCODE_DELAY_MS=N` in the recorder's environment, every video encode takes N ms
/// longer, as on a machine too slow for the chosen settings. The real encoder still runs; only its
/// speed is taken away, deterministically, which a competing CPU load on a shared machine cannot
/// do. Unset (every real use), it costs nothing.
enum SimulatedSlowEncoder {
    /// The extra time per encoded frame, in microseconds, or nil when the variable is unset or not
    /// a positive number of milliseconds (at most 1000). Read once, at first use.
    static let delayMicroseconds: UInt32? = {
        guard let text = ProcessInfo.processInfo.environment["RECORDKIT_TEST_ENCODE_DELAY_MS"],
              let ms = UInt32(text), ms > 0, ms <= 1000 else { return nil }
        return ms * 1000
    }()

    /// Sleeps for ``delayMicroseconds`` when set; returns at once otherwise. On the encoder's queue.
    static func waitIfAsked() {
        if let delay = delayMicroseconds { usleep(delay) }
    }
}
