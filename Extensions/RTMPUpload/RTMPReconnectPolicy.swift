import Glibc
import RecordKit

/// When an ``RTMPUploadHandler`` that was live and lost its connection tries again: exponential
/// back-off with jitter, as OBS does (its defaults: first retry after 2 s, 25 tries).
///
/// Attempt *n* (1-based) waits `min(maxDelay, firstDelay × multiplier^(n−1))`, then that times
/// a random factor in `1 ± jitter`, so several clients cut off together do not come back in
/// step. With the defaults: 2, 3, 4.5, 6.75, … s, capped at 30 s; 25 attempts span about
/// 10 minutes. A successful reconnection starts the count again.
package struct RTMPReconnectPolicy: Sendable, Hashable {
    /// Seconds before the first attempt after the connection was lost.
    package var firstDelaySeconds: Double
    /// Factor between successive delays.
    package var multiplier: Double
    /// Relative random spread of each delay (0.1 = ±10 %).
    package var jitter: Double
    /// The longest delay, before jitter.
    package var maxDelaySeconds: Double
    /// Attempts before giving up; then the handler ends with an error. 0 never reconnects.
    package var maxAttempts: Int

    /// Creates a policy; the defaults are 2 s, ×1.5, ±10 %, at most 30 s, 25 attempts.
    package init(firstDelaySeconds: Double = 2, multiplier: Double = 1.5, jitter: Double = 0.1,
                maxDelaySeconds: Double = 30, maxAttempts: Int = 25) {
        self.firstDelaySeconds = firstDelaySeconds
        self.multiplier = multiplier
        self.jitter = jitter
        self.maxDelaySeconds = maxDelaySeconds
        self.maxAttempts = maxAttempts
    }

    /// The delay before attempt `attempt` (1-based) without jitter.
    package func nominalDelay(beforeAttempt attempt: Int) -> Double {
        let exponent = Double(max(0, attempt - 1))
        return min(maxDelaySeconds, firstDelaySeconds * pow(multiplier, min(exponent, 200)))
    }

    /// The delay before attempt `attempt` (1-based), with the jitter given by `random`, a number
    /// in `-1...1` (uniformly random in use; fixed in tests).
    package func delay(beforeAttempt attempt: Int, random: Double = Double.random(in: -1...1)) -> Double {
        max(0, nominalDelay(beforeAttempt: attempt) * (1 + jitter * min(1, max(-1, random))))
    }

    func validate() throws(BroadcastError) {
        guard firstDelaySeconds >= 0, firstDelaySeconds.isFinite, multiplier >= 1, multiplier.isFinite,
              (0..<1).contains(jitter), maxDelaySeconds >= firstDelaySeconds, maxDelaySeconds.isFinite, maxAttempts >= 0 else {
            throw BroadcastError(.invalidSetup, "RTMP reconnect policy is not valid: \(self)")
        }
    }
}
