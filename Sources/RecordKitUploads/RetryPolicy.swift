/// Exponential back-off with jitter for failed attempts: 1 s, 2 s, 4 s … capped at 30 s, each
/// multiplied by a random factor in [0.5, 1], at least the server's `Retry-After`; after
/// ``maxAttempts`` failures in a row without progress the upload fails. With the defaults an
/// upload rides out about two minutes of an unreachable server. Pure.
package struct RetryPolicy: Sendable {
    package var base: Double = 1
    package var cap: Double = 30
    package var maxAttempts: Int = 10

    package init(base: Double = 1, cap: Double = 30, maxAttempts: Int = 10) {
        self.base = base
        self.cap = cap
        self.maxAttempts = maxAttempts
    }

    /// The delay before attempt `attempt + 1`, after `attempt` failures (1-based).
    package func delay(after attempt: Int, retryAfter: Double?) -> Double {
        let exp = min(cap, base * Double(1 << min(attempt - 1, 20)))
        let jittered = exp * Double.random(in: 0.5...1)
        return max(jittered, min(retryAfter ?? 0, 300))
    }
}
