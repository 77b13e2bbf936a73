import CX11
import Foundation
import Glibc
import RecordKitSupport
import Synchronization

/// Gives every Xlib call on a watched connection a deadline.
///
/// Xlib blocks without limit when the server stops answering (SIGSTOP, a hang): the capture
/// thread would wait forever inside `XShmGetImage` and the recording could neither go on nor
/// stop. While at least one connection is watched, one thread looks at each watched connection
/// every ``interval``: when requests are outstanding (`XNextRequest` − 1 > `XLastKnownRequestProcessed`)
/// and none was answered for ``stallSeconds``, it asks the server directly with ``XServerProbe``
/// (a connection of its own, ``probeTimeoutMs``). A server that does not answer that either is
/// hung: the watchdog shuts the connection's socket down, every Xlib call blocked on it returns
/// (Xlib sees an I/O error, which ``XErrorTrap`` makes non-fatal), the connection reads as lost,
/// and ``reason(for:)`` says why. A busy but live server answers the probe and is left alone.
///
/// Probes happen only when a connection looks stuck, so a healthy recording costs the server
/// nothing (no extra connections, nothing in its log). Thread-safe.
enum XServerWatchdog {
    /// Time between looks at the watched connections, in seconds.
    static let interval: Double = 0.5
    /// How long outstanding requests may go unanswered before the server is probed.
    static let stallSeconds: Double = 3
    /// How long one probe waits for an answer, in milliseconds.
    static let probeTimeoutMs: Int32 = 2_000

    private struct Watched {
        var name: String
        var fd: Int32
        /// Last request number the server was known to have processed, and since when.
        var processed: UInt = 0
        var processedSince: Double = 0
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
            s.watched[key(display)] = Watched(name: name, fd: fd, processedSince: MonotonicClock.seconds())
            if s.running { return false }
            s.running = true
            return true
        }
        if start { Thread.detachNewThread { run() } }
    }

    /// Stops watching `display`; after it returns the watchdog never touches it again.
    static func unwatch(_ display: OpaquePointer) {
        _ = state.withLock { $0.watched.removeValue(forKey: key(display)) }
    }

    /// Why the watchdog cut `display`'s connection, if it did.
    static func reason(for display: OpaquePointer) -> String? {
        state.withLock { $0.watched[key(display)]?.reason }
    }

    private static func key(_ display: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: display)) }

    private static func run() {
        SerialThread.nameCurrentThread("rk-x-watchdog")
        while true {
            // Which connections look stuck (read under the lock: unwatch, which precedes
            // XCloseDisplay, cannot run meanwhile, so the Display is alive while read).
            let suspects = state.withLock { s -> [(UInt, String)]? in
                if s.watched.isEmpty { s.running = false; return nil }
                let t = MonotonicClock.seconds()
                var list: [(UInt, String)] = []
                for (k, var w) in s.watched where w.reason == nil {
                    guard let display = OpaquePointer(bitPattern: k) else { continue }
                    // Racy reads of two counters Xlib keeps in the Display: a heuristic only,
                    // confirmed by a probe before anything is done.
                    let next = XNextRequest(display), done = XLastKnownRequestProcessed(display)
                    if next &- 1 <= done || done != w.processed {
                        w.processed = done
                        w.processedSince = t
                    } else if t - w.processedSince >= stallSeconds {
                        list.append((k, w.name))
                    }
                    s.watched[k] = w
                }
                return list
            }
            guard let suspects else { return }
            for (k, name) in suspects where XServerProbe.probe(name, timeoutMs: probeTimeoutMs) == .silent {
                state.withLock { s in
                    guard var w = s.watched[k], w.reason == nil else { return }
                    let waited = Int((MonotonicClock.seconds() - w.processedSince).rounded())
                    w.reason = "the X server of display \(name) stopped answering (no reply for \(waited) s)"
                    shutdown(w.fd, Int32(SHUT_RDWR))  // under the lock: still this connection's descriptor
                    s.watched[k] = w
                }
            }
            Thread.sleep(forTimeInterval: interval)
        }
    }
}
