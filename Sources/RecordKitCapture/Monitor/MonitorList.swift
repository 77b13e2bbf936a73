import CX11

/// Reads the X screen's RandR monitors (`XRRGetMonitors`, RandR 1.5).
///
/// ``list(display:)`` opens its own connection and may be called from any thread; the
/// connection-bound ``read(_:)`` is confined to that connection's thread.
package enum MonitorList {
    /// The monitors of display `display` (nil: `$DISPLAY`), in server order.
    /// - Throws: ``CaptureError`` `.noDisplay` when the display cannot be opened, `.xError`
    ///   when the server lacks RandR 1.5.
    package static func list(display: String? = nil) throws(CaptureError) -> [MonitorInfo] {
        let connection = try XDisplayConnection(name: display)
        defer { connection.close() }
        return try read(connection)
    }

    /// The monitors, over `connection` (one round trip).
    static func read(_ connection: XDisplayConnection) throws(CaptureError) -> [MonitorInfo] {
        let display = connection.display
        var eventBase: Int32 = 0, errorBase: Int32 = 0
        var major: Int32 = 0, minor: Int32 = 0
        guard XRRQueryExtension(display, &eventBase, &errorBase) != 0, XRRQueryVersion(display, &major, &minor) != 0,
              major > 1 || (major == 1 && minor >= 5) else {
            throw CaptureError(.xError, "display \(connection.name) has no RandR 1.5, which lists monitors")
        }
        var count: Int32 = 0
        guard let list = XRRGetMonitors(display, connection.root, 1, &count) else { return [] }
        defer { XRRFreeMonitors(list) }
        return (0..<Int(count)).map { index in
            let monitor = list[index]
            var name = "monitor-\(index)"
            if let atomName = XGetAtomName(display, monitor.name) {
                name = String(cString: atomName)
                XFree(atomName)
            }
            return MonitorInfo(index: index, name: name, isPrimary: monitor.primary != 0, x: Int(monitor.x), y: Int(monitor.y),
                               width: Int(monitor.width), height: Int(monitor.height))
        }
    }

    /// The monitor `selector` names, over `connection`.
    /// - Throws: ``CaptureError`` `.badRegion` listing the monitors when none matches.
    static func find(_ selector: MonitorSelector, _ connection: XDisplayConnection) throws(CaptureError) -> MonitorInfo {
        let monitors = try read(connection)
        if let match = monitors.first(where: { $0.matches(selector) }) { return match }
        let known = monitors.map { "\($0.index) '\($0.name)' \($0.rect)" }.joined(separator: ", ")
        throw CaptureError(.badRegion, "\(selector) does not exist on display \(connection.name) (monitors: \(known.isEmpty ? "none" : known)); "
            + "see `recordctl monitors`")
    }
}
