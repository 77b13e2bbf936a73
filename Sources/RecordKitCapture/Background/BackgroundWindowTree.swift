import CX11

/// Window-tree and property queries the background monitor needs, on one X connection.
///
/// Reparenting window managers put each client window into a frame: the id a user gives
/// (`xdotool`, `xwininfo`) may be the client, the frame, or a window inside the client. The
/// window-manager state (`WM_STATE`, `_NET_WM_STATE`) lives on the client, `_NET_ACTIVE_WINDOW`
/// names the client, and stacking and focus happen at the top-level window (the frame, a child
/// of the root). These helpers resolve one from the other. Windows that vanish mid-query make
/// the query return nil or empty (the error trap records the `BadWindow`; no exit).
struct BackgroundWindowTree {
    /// The connection to query; used by one thread at a time.
    let connection: XDisplayConnection

    /// Deepest level below a given window searched for its client (as `XmuClientWindow` does).
    private static let clientSearchDepth = 4
    /// Most windows looked at when searching for a client, so a huge tree cannot stall a poll.
    private static let clientSearchLimit = 256

    /// The parent of `window`, or nil if it vanished (0 for the root).
    func parent(of window: UInt) -> UInt? {
        var root: UInt = 0, parent: UInt = 0
        var list: UnsafeMutablePointer<UInt>?
        var count: UInt32 = 0
        guard XQueryTree(connection.display, window, &root, &parent, &list, &count) != 0 else { return nil }
        if let list { XFree(list) }
        return parent
    }

    /// The children of `window` in stacking order; empty if it has none or vanished.
    func children(of window: UInt) -> [UInt] {
        var root: UInt = 0, parent: UInt = 0
        var list: UnsafeMutablePointer<UInt>?
        var count: UInt32 = 0
        guard XQueryTree(connection.display, window, &root, &parent, &list, &count) != 0 else { return [] }
        defer { if let list { XFree(list) } }
        guard let list else { return [] }
        return Array(UnsafeBufferPointer(start: list, count: Int(count)))
    }

    /// The top-level window holding `window`: its ancestor (or itself) whose parent is the root.
    /// Under a reparenting window manager that is the frame. Nil if a window on the way vanished.
    func topLevel(of window: UInt) -> UInt? {
        var current = window
        for _ in 0..<64 {
            if current == connection.root { return nil }
            guard let parent = parent(of: current), parent != 0 else { return nil }
            if parent == connection.root { return current }
            current = parent
        }
        return nil
    }

    /// The client window for `window`: itself if it has `WM_STATE`, else the nearest descendant
    /// that has it (a frame was given), else the nearest ancestor below the root that has it (a
    /// window inside the client was given); nil when none has (not managed, or no window manager).
    func client(of window: UInt, wmState: UInt) -> UInt? {
        if hasProperty(window, wmState) { return window }
        var level = [window]
        var visited = 0
        for _ in 0..<Self.clientSearchDepth where !level.isEmpty && visited < Self.clientSearchLimit {
            var next: [UInt] = []
            for candidate in level {
                for child in children(of: candidate) {
                    visited += 1
                    if hasProperty(child, wmState) { return child }
                    next.append(child)
                    if visited >= Self.clientSearchLimit { return nil }
                }
            }
            level = next
        }
        var current = window
        while let parent = parent(of: current), parent != 0, parent != connection.root {
            if hasProperty(parent, wmState) { return parent }
            current = parent
        }
        return nil
    }

    /// Whether `window` has `property` set (any type).
    func hasProperty(_ window: UInt, _ property: UInt) -> Bool {
        values(window, property) != nil
    }

    /// A 32-bit-format property (`CARDINAL`, `ATOM`, `WINDOW`, `WM_STATE`, …) as its items; empty
    /// when it has another format; nil when it is absent or the window vanished. Xlib hands format-32 data
    /// over as C `long`s, so each item is one `UInt` here.
    func values(_ window: UInt, _ property: UInt) -> [UInt]? {
        guard let p = XWindowProperty(connection, window: window, property: property, maxItems: 1024) else { return nil }
        return p.format == 32 ? p.items : []
    }

}
