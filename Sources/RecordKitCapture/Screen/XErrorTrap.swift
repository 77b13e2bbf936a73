import CX11
import Synchronization

/// One X protocol error, as reported to the error handler.
struct XErrorRecord: Sendable, Equatable {
    /// The X error code (`BadWindow`, `BadMatch`, `BadAccess`, …).
    var errorCode: UInt8
    /// Major opcode of the failed request.
    var requestCode: UInt8
    /// Minor opcode (extension requests such as MIT-SHM).
    var minorCode: UInt8
    /// The resource the request named (a window id, for `BadWindow`).
    var resourceID: UInt
}

/// Process-wide X error and I/O-error handlers that record instead of exiting.
///
/// Xlib's default handlers call `exit()`: a `BadWindow` from a window closed at the wrong moment,
/// or an X server that goes away, would end the whole recorder. `install()` puts handlers in
/// place once per process. For displays registered here, protocol errors are recorded per
/// display (read them with `take(_:)` after a round trip) and a lost connection is remembered
/// (`isConnectionLost(_:)`) while Xlib calls return failure. Errors of displays this type does
/// not know go to the handlers that were installed before, so other X code in the process keeps
/// its behaviour.
enum XErrorTrap {
    /// Per-display state, keyed by the `Display*` address.
    private struct Entry {
        var firstError: XErrorRecord?
        var connectionLost = false
    }

    private struct State {
        var entries: [UInt: Entry] = [:]
        var previousErrorHandler: XErrorHandler?
        var previousIOErrorHandler: XIOErrorHandler?
    }

    private static let state = Mutex(State())

    /// Installs the handlers (first call only) and calls `XInitThreads`. Safe from any thread.
    static func install() { _ = installation }

    private static let installation: Void = {
        XInitThreads()
        let previous = XSetErrorHandler(xErrorHandler)
        let previousIO = XSetIOErrorHandler(xIOErrorHandler)
        state.withLock {
            $0.previousErrorHandler = previous
            $0.previousIOErrorHandler = previousIO
        }
    }()

    /// Starts recording errors of `display` and makes a lost connection non-fatal for it.
    static func register(_ display: OpaquePointer) {
        install()
        state.withLock { $0.entries[key(display)] = Entry() }
        XSetIOErrorExitHandler(display, xIOErrorExitHandler, nil)
    }

    /// Forgets `display`; call right after `XCloseDisplay` (its address may be reused).
    static func unregister(_ display: OpaquePointer) {
        _ = state.withLock { $0.entries.removeValue(forKey: key(display)) }
    }

    /// Clears the recorded error of `display`, before a request whose outcome matters.
    static func reset(_ display: OpaquePointer) {
        state.withLock { $0.entries[key(display)]?.firstError = nil }
    }

    /// The first error recorded for `display` since the last `reset`, and clears it. Only errors
    /// Xlib has already read are seen: call it after a round trip (a reply or `XSync`).
    static func take(_ display: OpaquePointer) -> XErrorRecord? {
        state.withLock { state -> XErrorRecord? in
            let error = state.entries[key(display)]?.firstError
            state.entries[key(display)]?.firstError = nil
            return error
        }
    }

    /// Whether the connection of `display` broke (X server gone). Every later Xlib call on it fails.
    static func isConnectionLost(_ display: OpaquePointer) -> Bool {
        state.withLock { $0.entries[key(display)]?.connectionLost ?? false }
    }

    private static func key(_ display: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: display)) }

    /// Records a protocol error; returns whether the display is one of ours.
    fileprivate static func record(_ display: OpaquePointer, _ event: XErrorEvent) -> Bool {
        state.withLock { state -> Bool in
            guard state.entries[key(display)] != nil else { return false }
            if state.entries[key(display)]?.firstError == nil {
                state.entries[key(display)]?.firstError = XErrorRecord(
                    errorCode: event.error_code, requestCode: event.request_code,
                    minorCode: event.minor_code, resourceID: UInt(event.resourceid))
            }
            return true
        }
    }

    /// Marks a display's connection lost; returns whether the display is one of ours.
    fileprivate static func markLost(_ display: OpaquePointer) -> Bool {
        state.withLock { state -> Bool in
            guard state.entries[key(display)] != nil else { return false }
            state.entries[key(display)]?.connectionLost = true
            return true
        }
    }

    fileprivate static var previousErrorHandler: XErrorHandler? { state.withLock { $0.previousErrorHandler } }
    fileprivate static var previousIOErrorHandler: XIOErrorHandler? { state.withLock { $0.previousIOErrorHandler } }
}

/// The process-wide protocol error handler: records errors of our displays, forwards the rest.
private func xErrorHandler(_ display: OpaquePointer?, _ event: UnsafeMutablePointer<XErrorEvent>?) -> Int32 {
    guard let display, let event else { return 0 }
    if XErrorTrap.record(display, event.pointee) { return 0 }
    if let previous = XErrorTrap.previousErrorHandler { return previous(display, event) }
    return 0
}

/// The process-wide I/O error handler: returns (instead of exiting) for our displays.
private func xIOErrorHandler(_ display: OpaquePointer?) -> Int32 {
    guard let display else { return 0 }
    if XErrorTrap.markLost(display) { return 0 }
    if let previous = XErrorTrap.previousIOErrorHandler { return previous(display) }
    return 0
}

/// The per-display exit handler Xlib calls after an I/O error; returning keeps the process alive.
private func xIOErrorExitHandler(_ display: OpaquePointer?, _ userData: UnsafeMutableRawPointer?) {
    if let display { _ = XErrorTrap.markLost(display) }
}
