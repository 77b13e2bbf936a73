import CX11
import Foundation
import Glibc
import Synchronization

/// Gives every Xlib call on a watched connection a deadline.
///
/// Xlib blocks without limit when the server stops answering (SIGSTOP, a hang): the capture
/// thread would wait forever inside `XShmGetImage` and the recording could neither go on nor
/// stop. While at least one connection is watched, one thread probes each watched display
/// every ``interval`` with ``XServerProbe``; when a server stays silent for ``silentProbes``
/// probes in a row, the watchdog shuts the connection's socket down. Every Xlib call blocked
/// on it then returns (Xlib sees an I/O error, which ``XErrorTrap`` makes non-fatal), the
/// connection reads as lost, and ``reason(for:)`` says why. Thread-safe.
enum XServerWatchdog {
    /// Time between probes of one display.
    static let interval: Double = 1.5
    /// How long one probe waits for an answer, in milliseconds.
    static let probeTimeoutMs: Int32 = 2_000
    /// Probes in a row without an answer that make a server count as hung.
    static let silentProbes = 2

    private struct Watched {
        var name: String
        var fd: Int32
        var silent = 0
        var reason: String?
    }

    private struct State {
        var watched: [UInt: Watched] = [:]
        var running = false
    }

    private static let state = Mutex(State())

    /// Starts watching `display` (opened as `name`). Call ``unwatch(_:)`` before `XCloseDisplay`.
    static func watch(_ display: OpaquePointer, name: String) {
        let fd = XConnectionNumber(display)
        let start = state.withLock { s -> Bool in
            s.watched[key(display)] = Watched(name: name, fd: fd)
            if s.running { return false }
            s.running = true
            return true
        }
        if start { Thread.detachNewThread { run() } }
    }

    /// Stops watching `display`; after it returns the watchdog never touches its socket.
    static func unwatch(_ display: OpaquePointer) {
        _ = state.withLock { $0.watched.removeValue(forKey: key(display)) }
    }

    /// Why the watchdog cut `display`'s connection, if it did.
    static func reason(for display: OpaquePointer) -> String? {
        state.withLock { $0.watched[key(display)]?.reason }
    }

    private static func key(_ display: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: display)) }

    private static func run() {
        while true {
            let targets = state.withLock { s -> [(UInt, String)]? in
                let live = s.watched.filter { $0.value.reason == nil }
                if s.watched.isEmpty { s.running = false; return nil }
                return live.map { ($0.key, $0.value.name) }
            }
            guard let targets else { return }
            // Probe each distinct display once.
            var outcomes: [String: XServerProbe.Outcome] = [:]
            for name in Set(targets.map(\.1)) { outcomes[name] = XServerProbe.probe(name, timeoutMs: probeTimeoutMs) }
            state.withLock { s in
                for (k, name) in targets {
                    guard var w = s.watched[k], w.reason == nil else { continue }
                    w.silent = outcomes[name] == .silent ? w.silent + 1 : 0
                    if w.silent >= silentProbes {
                        let seconds = Double(silentProbes) * (interval + Double(probeTimeoutMs) / 1000)
                        w.reason = "the X server of display \(name) stopped answering (no reply for about \(Int(seconds.rounded())) s)"
                        // Under the lock: unwatch (before XCloseDisplay) cannot run meanwhile,
                        // so the descriptor is still this connection's.
                        shutdown(w.fd, Int32(SHUT_RDWR))
                    }
                    s.watched[k] = w
                }
            }
            Thread.sleep(forTimeInterval: interval)
        }
    }
}
