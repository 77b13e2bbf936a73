import CX11
import RecordKit

/// Where the capture target is on the root window, asked once per tick.
///
/// A screen or region target never moves. A window target is looked up every tick
/// (`XGetWindowAttributes` for size and visibility, `XTranslateCoordinates` for its position on
/// the root window), so the capture follows it as it moves, also under a reparenting window
/// manager. Confined to the thread that owns the connection.
final class TargetTracker {
    /// Where the target is this tick.
    enum Position: Equatable {
        /// The target occupies this rectangle of the root window (its current size).
        case visible(PixelRect)
        /// The window exists but is not viewable (unmapped, minimized, on another desktop).
        case hidden
        /// The window was destroyed.
        case gone
    }

    private enum Kind {
        case fixed(PixelRect)
        case window(UInt)
        case monitor(MonitorSelector)
    }

    private let connection: XDisplayConnection
    private let kind: Kind
    /// Monitor targets: the last known rectangle (nil: gone) and ticks until the next look-up.
    private var monitorRect: PixelRect?
    private var ticksUntilLookup = 0
    /// Ticks between monitor look-ups (set to the frame rate: once a second).
    var monitorLookupInterval = 30

    /// Tracks RandR monitor `selector`, now at `rect`.
    init(connection: XDisplayConnection, monitor selector: MonitorSelector, at rect: PixelRect) {
        self.connection = connection
        self.kind = .monitor(selector)
        self.monitorRect = rect
        self.ticksUntilLookup = monitorLookupInterval
    }

    /// Tracks a fixed rectangle of the root window.
    init(connection: XDisplayConnection, fixed rect: PixelRect) {
        self.connection = connection
        self.kind = .fixed(rect)
    }

    /// Tracks window `window`.
    init(connection: XDisplayConnection, window: UInt) {
        self.connection = connection
        self.kind = .window(window)
    }

    /// The target's position now. For a window this costs two round trips to the X server.
    func current() -> Position {
        switch kind {
        case .fixed(let rect):
            return .visible(rect)
        case .window(let window):
            return locate(window)
        case .monitor(let selector):
            ticksUntilLookup -= 1
            if ticksUntilLookup <= 0 {
                ticksUntilLookup = monitorLookupInterval
                monitorRect = (try? MonitorList.find(selector, connection))?.rect
            }
            return monitorRect.map { .visible($0) } ?? .hidden
        }
    }

    /// Whether a window target is still viewable (one round trip); always true for a screen,
    /// region or monitor. Asked after a grab: X handles one connection's requests in order, so a
    /// window found viewable now was viewable when the grab was made.
    func isStillViewable() -> Bool {
        guard case .window(let window) = kind else { return true }
        let display = connection.display
        XErrorTrap.reset(display)
        var attributes = XWindowAttributes()
        guard XGetWindowAttributes(display, window, &attributes) != 0, XErrorTrap.take(display) == nil else { return false }
        return attributes.map_state == IsViewable
    }

    private func locate(_ window: UInt) -> Position {
        let display = connection.display
        XErrorTrap.reset(display)
        var attributes = XWindowAttributes()
        // Each call waits for its reply, so an error it caused has been recorded on return.
        guard XGetWindowAttributes(display, window, &attributes) != 0,
              XErrorTrap.take(display) == nil else { return .gone }
        guard attributes.map_state == IsViewable else { return .hidden }
        var x: Int32 = 0, y: Int32 = 0
        var child: UInt = 0
        guard XTranslateCoordinates(display, window, connection.root, 0, 0, &x, &y, &child) != 0,
              XErrorTrap.take(display) == nil else { return .gone }
        return .visible(PixelRect(x: Int(x), y: Int(y), width: Int(attributes.width), height: Int(attributes.height)))
    }
}
