import RecordKitSupport
import Synchronization

/// Notices a PulseAudio server that stops answering while connected (stopped, hung): libpulse
/// only reports a server whose socket closes. Every ``interval`` it runs `ping` (a server
/// round trip with its own deadline, off the PulseAudio thread); the first ping that fails while
/// the connection is still up calls `onSilent` once with the reason. Then it stops.
/// The pings run on a thread of its own, `rk-pulse-ping` (``RepeatingThread``; a Dispatch timer
/// took a pool worker each time). `@unchecked`: its only mutable part is that thread, which is thread-safe.
final class PulseLivenessWatch: @unchecked Sendable {
    /// Time between pings, in seconds.
    static let interval: Double = 2
    /// How long one ping may take, in seconds.
    static let pingTimeout: Double = 2

    private var timer: RepeatingThread?  // set once, in init
    private let reported = Atomic<Bool>(false)
    private let ping: @Sendable () -> String?
    private let onSilent: @Sendable (String) -> Void

    /// Starts pinging. `ping` returns nil when the server answered, else why not (called on a
    /// private queue); `onSilent` gets the reason once.
    init(ping: @escaping @Sendable () -> String?, onSilent: @escaping @Sendable (String) -> Void) {
        self.ping = ping
        self.onSilent = onSilent
        timer = RepeatingThread(name: "rk-pulse-ping", firstAfterSeconds: Self.interval, everySeconds: Self.interval) { [weak self] in
            self?.tick()
        }
    }

    private func tick() {
        guard !reported.load(ordering: .acquiring), let why = ping() else { return }
        guard reported.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        timer?.stop()
        onSilent(why)
    }

    /// Stops pinging; idempotent.
    func stop() { timer?.stop() }

    deinit { timer?.stop() }
}
