import Foundation
import Synchronization

/// Probes availability (``AvailabilityProbe``) every ``interval`` seconds on a thread of its
/// own, whether or not a recording runs, and calls `onChange` (on that thread) when the
/// display's or the audio server's reachability changed. ``current`` never waits for a probe.
final class AvailabilityMonitor: Sendable {
    /// Seconds between probes.
    let interval: Double
    private let state = Mutex<(current: Availability?, running: Bool)>((nil, false))
    private let environment: [String: String]

    /// A monitor of the servers `environment` names (the service's own environment by default).
    init(interval: Double = 1, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.interval = interval
        self.environment = environment
    }

    /// The last probe's result (the first probe runs in ``start(onChange:)``).
    var current: Availability? { state.withLock { $0.current } }

    /// Probes once now, then keeps probing until ``stop()``; `onChange(old, new)` runs for each change.
    func start(onChange: @escaping @Sendable (Availability, Availability) -> Void) {
        let first = AvailabilityProbe.probe(environment: environment)
        let started: Bool = state.withLock { s in
            if s.running { return false }
            s.running = true
            s.current = first
            return true
        }
        guard started else { return }
        let thread = Thread { [self] in
            while state.withLock({ $0.running }) {
                Thread.sleep(forTimeInterval: interval)
                let next = AvailabilityProbe.probe(environment: environment)
                let old: Availability? = state.withLock { s in
                    let old = s.current
                    s.current = next
                    return old
                }
                if let old, old.display.reachable != next.display.reachable || old.audio.reachable != next.audio.reachable {
                    onChange(old, next)
                }
            }
        }
        thread.name = "recordkit.availability"
        thread.start()
    }

    /// Stops probing (the thread ends after its current probe).
    func stop() { state.withLock { $0.running = false } }
}
