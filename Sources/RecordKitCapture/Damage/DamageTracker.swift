import CX11
import RecordKit

/// Which parts of the root window changed since the last ``collect()``, from the X DAMAGE
/// extension, so that a tick with nothing new grabs nothing.
///
/// One `Damage` object on the root window (it reports drawing into every window on the
/// screen) at level `NonEmpty`. ``collect()`` asks the server every tick (one small round trip:
/// subtract the damage into a region, fetch its rectangles) rather than waiting for the
/// `DamageNotify` event: the reply is ordered after everything the server drew before it, while
/// an event can still be on its way when the tick reads its queue, which would make a change
/// land one frame late. The events are swallowed by ``noteEvent(_:)`` from the capture
/// session's event loop.
///
/// Confined to the thread that owns the connection.
final class DamageTracker {
    private let connection: XDisplayConnection
    private let damage: Damage
    private let region: XserverRegion
    private let eventType: Int32

    /// A tracker of the root window, or nil when the server lacks DAMAGE or XFixes regions.
    init?(connection: XDisplayConnection) {
        let display = connection.display
        var eventBase: Int32 = 0, errorBase: Int32 = 0
        var fixesEvent: Int32 = 0, fixesError: Int32 = 0
        guard XDamageQueryExtension(display, &eventBase, &errorBase) != 0,
              XFixesQueryExtension(display, &fixesEvent, &fixesError) != 0 else { return nil }
        var major: Int32 = 0, minor: Int32 = 0
        guard XDamageQueryVersion(display, &major, &minor) != 0 else { return nil }
        self.connection = connection
        self.eventType = eventBase + Int32(XDamageNotify)
        self.damage = XDamageCreate(display, connection.root, Int32(XDamageReportNonEmpty))
        self.region = XFixesCreateRegion(display, nil, 0)
    }

    /// Whether `event` is a damage notification (to be dropped: ``collect()`` asks every tick).
    func noteEvent(_ event: inout XEvent) -> Bool {
        event.type == eventType
    }

    /// The rectangles (root coordinates) damaged since the last call, and clears them on the
    /// server (one round trip).
    func collect() -> [PixelRect] {
        let display = connection.display
        XDamageSubtract(display, damage, 0, region)
        var count: Int32 = 0
        guard let list = XFixesFetchRegion(display, region, &count) else { return [] }
        defer { XFree(list) }
        return (0..<Int(count)).map { index in
            let r = list[index]
            return PixelRect(x: Int(r.x), y: Int(r.y), width: Int(r.width), height: Int(r.height))
        }
    }

    /// Frees the server-side objects. Call before closing the connection, on its thread.
    func close() {
        guard !connection.isConnectionLost else { return }
        XDamageDestroy(connection.display, damage)
        XFixesDestroyRegion(connection.display, region)
    }
}
