import CX11

/// Resolves a ``WindowSelector`` to an existing X window.
struct WindowFinder {
    /// The connection to search.
    let connection: XDisplayConnection

    /// The window named by `selector`.
    /// - Throws: `.windowNotFound` naming the id or title that matched nothing.
    func find(_ selector: WindowSelector) throws(CaptureError) -> UInt {
        switch selector {
        case .id(let id):
            guard exists(id) else {
                throw CaptureError(.windowNotFound,
                    "no window with id 0x\(String(id, radix: 16)) (\(id)) on display \(connection.name): list windows with xwininfo -root -tree")
            }
            return id
        case .name(let name):
            guard let id = search(title: name) else {
                throw CaptureError(.windowNotFound,
                    "no window titled \"\(name)\" on display \(connection.name) (exact, case-sensitive match of _NET_WM_NAME or WM_NAME): list titles with xwininfo -root -tree")
            }
            return id
        }
    }

    /// Whether `window` exists (`XGetWindowAttributes` succeeds without `BadWindow`).
    func exists(_ window: UInt) -> Bool {
        guard window != 0, window <= UInt(UInt32.max) else { return false }
        var attributes = XWindowAttributes()
        let (status, error) = connection.checked { XGetWindowAttributes(connection.display, window, &attributes) }
        return status != 0 && error == nil
    }

    /// The first window, depth-first from the root in stacking order (bottom to top), whose
    /// `_NET_WM_NAME` or `WM_NAME` equals `title` exactly.
    func search(title: String) -> UInt? {
        let display = connection.display
        let netWMName = XInternAtom(display, "_NET_WM_NAME", 0)
        var pending: [UInt] = [connection.root]
        XErrorTrap.reset(display)
        while !pending.isEmpty {
            let window = pending.removeLast()
            if window != connection.root,
               textProperty(window, netWMName).contains(title) || textProperty(window, UInt(XA_WM_NAME)).contains(title) {
                _ = XErrorTrap.take(display)
                return window
            }
            pending.append(contentsOf: children(of: window).reversed())
        }
        _ = XErrorTrap.take(display)  // windows that vanished during the walk
        return nil
    }

    /// Children of `window` in stacking order; empty if it vanished.
    private func children(of window: UInt) -> [UInt] {
        var root: UInt = 0, parent: UInt = 0
        var list: UnsafeMutablePointer<UInt>?
        var count: UInt32 = 0
        guard XQueryTree(connection.display, window, &root, &parent, &list, &count) != 0 else { return [] }
        defer { if let list { XFree(list) } }
        guard let list else { return [] }
        return Array(UnsafeBufferPointer(start: list, count: Int(count)))
    }

    /// The readings of a text property: UTF-8, plus Latin-1 when it is typed `STRING` (as ICCCM
    /// says, though many clients put UTF-8 there). Empty when the property is absent.
    private func textProperty(_ window: UInt, _ property: UInt) -> [String] {
        guard let p = XWindowProperty(connection, window: window, property: property, maxItems: 4096), p.format == 8 else { return [] }
        let bytes = p.bytes
        let actualType = p.type
        var readings = [String(decoding: bytes, as: UTF8.self)]
        if actualType == UInt(XA_STRING) {
            readings.append(String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) })))
        }
        return readings
    }
}
