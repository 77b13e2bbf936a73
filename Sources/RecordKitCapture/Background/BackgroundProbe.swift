import CX11

/// The X side of ``BackgroundMonitor``: its own connection, the recorded window, and one look at
/// everything that decides whether recording is in the background.
///
/// Threading: created on the caller's thread, then used only by the monitor thread (or, if
/// the monitor never started, closed by `stop()`); never by two threads at once.
final class BackgroundProbe {
    /// What one look found.
    enum Outcome: Equatable {
        /// The state right now.
        case observed(BackgroundObservation)
        /// The recorded window no longer exists.
        case windowGone
        /// The connection to the X server broke; nothing more can be observed.
        case connectionLost
    }

    private let connection: XDisplayConnection
    private let tree: BackgroundWindowTree
    /// The recorded window as given; nil when recording the screen or a region.
    private let window: UInt?
    private let policy: PauseOnBackgroundPolicy
    /// The client window holding the window-manager state, once found (see `BackgroundWindowTree`).
    private var client: UInt?
    private let wmState: UInt
    private let netWMState: UInt
    private let netWMStateHidden: UInt
    private let netActiveWindow: UInt
    private let netSupported: UInt
    /// Reused `XScreenSaverQueryInfo` buffer; nil when the server lacks MIT-SCREEN-SAVER.
    private var saverInfo: UnsafeMutablePointer<XScreenSaverInfo>?
    private var isClosed = false

    /// Opens `display` (or `$DISPLAY`) and checks that `window` exists.
    /// - Throws: `.noDisplay` when the display cannot be opened, `.windowNotFound` when `window`
    ///   names no window.
    init(display: String?, window: UInt?, policy: PauseOnBackgroundPolicy) throws(CaptureError) {
        let connection = try XDisplayConnection(name: display)
        let tree = BackgroundWindowTree(connection: connection)
        // The root is the whole screen: only the screen lock applies to it.
        let window = window == connection.root ? nil : window
        if let window {
            var attributes = XWindowAttributes()
            let valid = window != 0 && window <= UInt(UInt32.max)
            let (status, error) = valid
                ? connection.checked { XGetWindowAttributes(connection.display, window, &attributes) }
                : (0, nil)
            guard status != 0, error == nil else {
                connection.close()
                throw CaptureError(.windowNotFound,
                    "no window with id 0x\(String(window, radix: 16)) (\(window)) on display \(connection.name) to watch for pause-on-background: list windows with xwininfo -root -tree")
            }
        }
        let display = connection.display
        self.connection = connection
        self.tree = tree
        self.window = window
        self.policy = policy
        wmState = XInternAtom(display, "WM_STATE", 0)
        netWMState = XInternAtom(display, "_NET_WM_STATE", 0)
        netWMStateHidden = XInternAtom(display, "_NET_WM_STATE_HIDDEN", 0)
        netActiveWindow = XInternAtom(display, "_NET_ACTIVE_WINDOW", 0)
        netSupported = XInternAtom(display, "_NET_SUPPORTED", 0)
        var eventBase: Int32 = 0, errorBase: Int32 = 0
        if XScreenSaverQueryExtension(display, &eventBase, &errorBase) != 0 {
            saverInfo = XScreenSaverAllocInfo()
            XScreenSaverSelectInput(display, connection.root, UInt(ScreenSaverNotifyMask))
        }
        if policy == .unfocused, window != nil {
            XSelectInput(display, connection.root, PropertyChangeMask)
        }
        if let window {
            watch(window)
            resolveClient()
        }
        XFlush(display)
    }

    /// The connection's file descriptor, readable when events arrive.
    var fileDescriptor: Int32 { XConnectionNumber(connection.display) }

    /// Whether the connection to the X server broke.
    var isConnectionLost: Bool { connection.isConnectionLost }

    /// Reads and discards every event already received (their arrival is the signal to look
    /// again); flushes pending requests. Returns how many there were.
    func drainEvents() -> Int {
        var count = 0
        while !isConnectionLost, XPending(connection.display) > 0 {
            var event = XEvent()
            XNextEvent(connection.display, &event)
            count += 1
        }
        return count
    }

    /// One look at the screen saver and, if a window is recorded, at that window.
    func observe() -> Outcome {
        guard !isConnectionLost else { return .connectionLost }
        var observation = BackgroundObservation()
        observation.screenSaverOn = screenSaverOn()
        if let window {
            var attributes = XWindowAttributes()
            guard XGetWindowAttributes(connection.display, window, &attributes) != 0 else {
                return isConnectionLost ? .connectionLost : .windowGone
            }
            if policy != .never {
                observation.windowViewable = attributes.map_state == IsViewable
                observation.windowMinimized = isMinimized()
                if policy == .unfocused { observation.windowActive = isActive(window) }
            }
        }
        return isConnectionLost ? .connectionLost : .observed(observation)
    }

    /// Closes the connection and frees the buffers. Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        if let saverInfo { XFree(saverInfo) }
        saverInfo = nil
        connection.close()
    }

    deinit { close() }

    /// `XScreenSaverQueryInfo` says `ScreenSaverOn` (the saver runs, or a locker activated it).
    private func screenSaverOn() -> Bool {
        guard let saverInfo else { return false }
        guard XScreenSaverQueryInfo(connection.display, connection.root, saverInfo) != 0 else { return false }
        return saverInfo.pointee.state == ScreenSaverOn
    }

    /// Whether the window manager marks the client minimized. An EWMH window manager says so
    /// with `_NET_WM_STATE_HIDDEN`; `WM_STATE` `IconicState` alone is then another kind of hidden
    /// (openbox, for one, sets it on windows of other workspaces), reported as unmapped. Without
    /// EWMH support for `_NET_WM_STATE_HIDDEN`, `IconicState` means minimized (ICCCM).
    private func isMinimized() -> Bool {
        var state = client.flatMap { tree.values($0, wmState) }
        if state == nil {
            resolveClient()
            state = client.flatMap { tree.values($0, wmState) }
        }
        guard let client else { return false }
        if tree.values(client, netWMState)?.contains(netWMStateHidden) == true { return true }
        guard state?.first == UInt(IconicState) else { return false }
        let supported = tree.values(connection.root, netSupported) ?? []
        return !supported.contains(netWMStateHidden)
    }

    /// Whether the active window is `window`'s own top-level window. `_NET_ACTIVE_WINDOW` when the
    /// window manager publishes it (0 there means no window is active: not ours); otherwise the
    /// X input focus, unknown (nil) when it is `None` or `PointerRoot`.
    private func isActive(_ window: UInt) -> Bool? {
        let active: UInt
        if let published = tree.values(connection.root, netActiveWindow)?.first {
            guard published != 0 else { return false }
            active = published
        } else {
            var focus: UInt = 0
            var revert: Int32 = 0
            XGetInputFocus(connection.display, &focus, &revert)
            guard focus != UInt(None), focus != UInt(PointerRoot) else { return nil }
            active = focus
        }
        if active == window || active == client { return true }
        guard let mine = tree.topLevel(of: window) else { return nil }
        return tree.topLevel(of: active) == mine
    }

    /// Finds the client window again (it appears when the window manager manages the window) and
    /// asks for its property and structure events.
    private func resolveClient() {
        guard let window else { return }
        let found = tree.client(of: window, wmState: wmState)
        if let found, found != client, found != window { watch(found) }
        client = found
    }

    /// Asks for the events that signal a change of `window`: properties (`WM_STATE`,
    /// `_NET_WM_STATE`) and structure (map, unmap, reparent, destroy).
    private func watch(_ window: UInt) {
        XSelectInput(connection.display, window, PropertyChangeMask | StructureNotifyMask)
    }
}
