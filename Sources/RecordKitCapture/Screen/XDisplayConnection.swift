import CX11
import Glibc

/// An open X display with the error trap registered: the one owner of a `Display*`.
///
/// Not thread-safe: it is used by one thread at a time (the thread that opened it until
/// capture starts, then the capture thread). `close()` (or deinit) calls `XCloseDisplay`.
///
/// Deadlines: opening fails within ``openTimeoutMs`` when the server accepts connections but
/// never answers (``XServerProbe``), and while open, ``XServerWatchdog`` cuts the connection of a
/// server that stops answering, so no Xlib call on it blocks for more than a few seconds.
final class XDisplayConnection {
    /// The Xlib display. Valid until `close()`.
    let display: OpaquePointer
    /// The display name as opened, for messages (e.g. `:0`).
    let name: String
    /// The default screen number.
    let screen: Int32
    /// The root window of the default screen.
    let root: UInt
    private var isClosed = false

    /// Opens `name`, or `$DISPLAY` when nil.
    /// - Throws: `.noDisplay` when no name is given and `DISPLAY` is unset or empty, or when the
    ///   display cannot be opened.
    init(name requested: String?) throws(CaptureError) {
        let name: String
        if let requested, !requested.isEmpty {
            name = requested
        } else if let environment = getenv("DISPLAY"), environment.pointee != 0 {
            name = String(cString: environment)
        } else {
            throw CaptureError(.noDisplay,
                "DISPLAY is unset: start an X session or set DISPLAY (e.g. DISPLAY=:0), or name the display to capture")
        }
        XErrorTrap.install()
        // Xlib has no deadline: ask the server first whether it answers at all.
        if XServerProbe.probe(name, timeoutMs: Self.openTimeoutMs) == .silent {
            throw CaptureError(.noDisplay,
                "the X server of display \"\(name)\" accepts connections but does not answer (no reply within \(Self.openTimeoutMs / 1000) s): "
                + "it is stopped or hung; check the X server, or set DISPLAY to another display")
        }
        guard let display = XOpenDisplay(name) else {
            throw CaptureError(.noDisplay,
                "could not open X display \"\(name)\": check that an X server runs there and that this user may connect (xauth, xhost)")
        }
        XErrorTrap.register(display)
        XServerWatchdog.watch(display, name: name)
        self.display = display
        self.name = name
        self.screen = XDefaultScreen(display)
        self.root = XRootWindow(display, screen)
    }

    /// How long opening waits for the server to answer, in milliseconds.
    static let openTimeoutMs: Int32 = 3_000

    /// Whether the connection to the X server broke (or ``XServerWatchdog`` cut it because the
    /// server stopped answering).
    var isConnectionLost: Bool { XErrorTrap.isConnectionLost(display) }

    /// Why the connection was lost, when the watchdog knows (a server that stopped answering).
    var lostReason: String? { XServerWatchdog.reason(for: display) }

    /// The current size of the root window (follows RandR changes), or nil if the query failed.
    func rootSize() -> (width: Int, height: Int)? {
        var rootReturn: UInt = 0
        var x: Int32 = 0, y: Int32 = 0
        var width: UInt32 = 0, height: UInt32 = 0, border: UInt32 = 0, depth: UInt32 = 0
        guard XGetGeometry(display, root, &rootReturn, &x, &y, &width, &height, &border, &depth) != 0 else {
            return nil
        }
        return (Int(width), Int(height))
    }

    /// Runs `body`, then waits for the server to process everything (`XSync`) and returns the
    /// first protocol error it caused, if any.
    func checked<T>(_ body: () -> T) -> (value: T, error: XErrorRecord?) {
        XErrorTrap.reset(display)
        let value = body()
        XSync(display, 0)
        return (value, XErrorTrap.take(display))
    }

    /// A readable name for an X error, e.g. `BadWindow (request 3)`.
    func describe(_ error: XErrorRecord) -> String {
        var text = [CChar](repeating: 0, count: 128)
        XGetErrorText(display, Int32(error.errorCode), &text, Int32(text.count))
        let name = String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(name) (request \(error.requestCode).\(error.minorCode), resource 0x\(String(error.resourceID, radix: 16)))"
    }

    /// Closes the display. Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        XServerWatchdog.unwatch(display)
        XCloseDisplay(display)
        XErrorTrap.unregister(display)
    }

    deinit { close() }
}
