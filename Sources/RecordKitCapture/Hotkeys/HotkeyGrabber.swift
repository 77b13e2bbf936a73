import CX11
import Foundation
import Glibc
import Synchronization

/// Global hotkeys on X11: grabs each chord on the root window of its own display connection
/// (`XGrabKey`, also with Caps Lock and Num Lock on) and calls `onPress` with the chord's index
/// on a thread of its own. A chord another client already grabbed is reported, not fatal; an X
/// server that goes away ends the grabber quietly (``XErrorTrap``), never the process.
package final class HotkeyGrabber: @unchecked Sendable {
    private let display: OpaquePointer
    private let running = Atomic<Bool>(true)
    private var grabs: [(keycode: UInt32, modifiers: UInt32, index: Int)] = []

    /// Grabs `chords` on `displayName`'s root window; returns the grabber and the chords it could
    /// not grab (with why). Throws when the display cannot be opened.
    package static func start(displayName: String?, chords: [HotkeyChord],
                              onPress: @escaping @Sendable (Int) -> Void) throws(CaptureError) -> (HotkeyGrabber, [String]) {
        XErrorTrap.install()
        guard let display = XOpenDisplay(displayName) else {
            throw CaptureError(.noDisplay, "cannot open display \(displayName ?? "(DISPLAY unset)") for hotkeys")
        }
        XErrorTrap.register(display)
        let grabber = HotkeyGrabber(display: display)
        var failures: [String] = []
        let root = XDefaultRootWindow(display)
        for (index, chord) in chords.enumerated() {
            let keysym = XStringToKeysym(chord.key)
            let keycode = keysym == 0 ? 0 : UInt32(XKeysymToKeycode(display, keysym))
            guard keycode != 0 else { failures.append("\(chord): no key named \(chord.key)"); continue }
            XErrorTrap.reset(display)
            for extra in [0, UInt32(LockMask), UInt32(Mod2Mask), UInt32(LockMask) | UInt32(Mod2Mask)] {
                XGrabKey(display, Int32(keycode), chord.modifiers | extra, root, 0, GrabModeAsync, GrabModeAsync)
            }
            XSync(display, 0)
            if XErrorTrap.take(display) != nil {
                failures.append("\(chord): another program already uses this key")
                continue
            }
            grabber.grabs.append((keycode, chord.modifiers, index))
        }
        let thread = Thread { grabber.loop(onPress) }
        thread.name = "recordkit.hotkeys"
        thread.start()
        return (grabber, failures)
    }

    private init(display: OpaquePointer) { self.display = display }

    /// Stops listening (the thread closes the display within 200 ms).
    package func stop() { running.store(false, ordering: .releasing) }

    private func loop(_ onPress: @Sendable (Int) -> Void) {
        defer {
            XCloseDisplay(display)
            XErrorTrap.unregister(display)
        }
        let fd = XConnectionNumber(display)
        let relevant = UInt32(ShiftMask) | UInt32(ControlMask) | UInt32(Mod1Mask) | UInt32(Mod4Mask)
        while running.load(ordering: .acquiring) {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 200)
            if XErrorTrap.isConnectionLost(display) { return }
            while XPending(display) > 0 {
                var event = XEvent()
                XNextEvent(display, &event)
                if XErrorTrap.isConnectionLost(display) { return }
                guard event.type == KeyPress else { continue }
                let key = event.xkey
                if let grab = grabs.first(where: { $0.keycode == key.keycode && $0.modifiers == key.state & relevant }) { onPress(grab.index) }
            }
        }
    }
}
