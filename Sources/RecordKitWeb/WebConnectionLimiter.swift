import Synchronization

/// Counts open connections, in all and per client address, and says whether one more may open.
///
/// Threading: any thread (one short lock).
final class WebConnectionLimiter: Sendable {
    private struct State {
        var total = 0
        var perClient: [String: Int] = [:]
    }
    private let state = Mutex(State())
    private let maxTotal: Int
    private let maxPerClient: Int

    init(maxTotal: Int, maxPerClient: Int) {
        self.maxTotal = maxTotal
        self.maxPerClient = maxPerClient
    }

    /// Counts a connection from `client` and returns true, or returns false (and counts
    /// nothing) when either cap is reached.
    func admit(_ client: String) -> Bool {
        state.withLock { s in
            guard s.total < maxTotal, s.perClient[client, default: 0] < maxPerClient else { return false }
            s.total += 1
            s.perClient[client, default: 0] += 1
            return true
        }
    }

    /// Forgets a connection ``admit(_:)`` counted.
    func release(_ client: String) {
        state.withLock { s in
            s.total -= 1
            let left = s.perClient[client, default: 1] - 1
            s.perClient[client] = left > 0 ? left : nil
        }
    }

    /// Connections open now.
    var open: Int { state.withLock { $0.total } }
}
