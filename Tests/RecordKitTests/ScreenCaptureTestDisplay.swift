import CX11
import Foundation
import XCTest

/// The X display the screen-capture tests run against, and a second client connection to it
/// through which the tests create windows and paint the root window.
final class ScreenCaptureTestDisplay {
    /// The display name (`RK_TEST_DISPLAY`, else `DISPLAY`).
    let name: String
    /// The test's own connection.
    let display: OpaquePointer
    /// The root window.
    let root: UInt
    /// Root window size.
    let width: Int
    /// Root window size.
    let height: Int

    /// Opens the test display, or skips the test when none is configured.
    init() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let name = [environment["RK_TEST_DISPLAY"], environment["DISPLAY"]]
            .compactMap({ $0 }).first(where: { !$0.isEmpty }) else {
            throw XCTSkip("set RK_TEST_DISPLAY or DISPLAY to an X server (e.g. Xvfb :57) to run screen capture tests")
        }
        guard let display = XOpenDisplay(name) else {
            throw XCTSkip("cannot open test display \(name)")
        }
        self.name = name
        self.display = display
        let screen = XDefaultScreen(display)
        self.root = XRootWindow(display, screen)
        self.width = Int(XDisplayWidth(display, screen))
        self.height = Int(XDisplayHeight(display, screen))
    }

    /// Paints the root window background `rgb` (0xRRGGBB) and waits until the server did it.
    func paintRoot(_ rgb: UInt) {
        XSetWindowBackground(display, root, rgb)
        XClearWindow(display, root)
        XSync(display, 0)
    }

    /// Creates and maps a window filled with `rgb` at `x`, `y`, titled `title` in `_NET_WM_NAME`
    /// (UTF-8) and `legacyTitle` (default: `title`, Latin-1) in `WM_NAME`.
    func makeWindow(title: String, legacyTitle: String? = nil, rgb: UInt, x: Int, y: Int, width: Int, height: Int) -> UInt {
        let window = XCreateSimpleWindow(display, root, Int32(x), Int32(y), UInt32(width), UInt32(height), 0, 0, rgb)
        // Override-redirect: the rig's window manager (openbox) neither places nor frames it, so it
        // appears exactly where asked, on top, as these tests assume.
        var attributes = XSetWindowAttributes()
        attributes.override_redirect = 1
        XChangeWindowAttributes(display, window, UInt(CWOverrideRedirect), &attributes)
        XStoreName(display, window, legacyTitle ?? title)
        let utf8 = Array(title.utf8)
        XChangeProperty(display, window, XInternAtom(display, "_NET_WM_NAME", 0), XInternAtom(display, "UTF8_STRING", 0),
                        8, PropModeReplace, utf8, Int32(utf8.count))
        XMapWindow(display, window)
        XSync(display, 0)
        return window
    }

    /// Moves a window and waits until the server did it.
    func move(_ window: UInt, x: Int, y: Int) {
        XMoveWindow(display, window, Int32(x), Int32(y))
        XSync(display, 0)
    }

    /// Resizes a window and waits until the server did it.
    func resize(_ window: UInt, width: Int, height: Int) {
        XResizeWindow(display, window, UInt32(width), UInt32(height))
        XSync(display, 0)
    }

    /// Unmaps (hides) a window and waits until the server did it.
    func unmap(_ window: UInt) {
        XUnmapWindow(display, window)
        XSync(display, 0)
    }

    /// Maps (shows) a window again and waits until the server did it.
    func map(_ window: UInt) {
        XMapWindow(display, window)
        XSync(display, 0)
    }

    /// Destroys a window.
    func destroy(_ window: UInt) {
        XDestroyWindow(display, window)
        XSync(display, 0)
    }

    /// Moves the pointer to root coordinates (`x`, `y`).
    func warpPointer(x: Int, y: Int) {
        XWarpPointer(display, 0, root, 0, 0, 0, 0, Int32(x), Int32(y))
        XSync(display, 0)
    }

    deinit { XCloseDisplay(display) }
}
