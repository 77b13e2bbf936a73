import CX11
import Glibc

/// Everything after option parsing; state is local so it stays off the main actor's globals.
func run(_ opts: Options) -> Never {
    guard let dpy = XOpenDisplay(nil) else {
        let name = getenv("DISPLAY").map { String(cString: $0) } ?? "(DISPLAY is not set)"
        fail("cannot open display \(name)", code: 69)
    }
    let screen = XDefaultScreen(dpy)
    let root = XRootWindow(dpy, screen)
    let colormap = XDefaultColormap(dpy, screen)

    func allocPixel(_ rgb: UInt32) -> UInt {
        var c = XColor()
        c.red = UInt16((rgb >> 16) & 0xFF) * 257
        c.green = UInt16((rgb >> 8) & 0xFF) * 257
        c.blue = UInt16(rgb & 0xFF) * 257
        c.flags = CChar(DoRed | DoGreen | DoBlue)
        guard XAllocColor(dpy, colormap, &c) != 0 else { fail("cannot allocate colour " + String(rgb, radix: 16), code: 69) }
        return c.pixel
    }
    let pixel = allocPixel(opts.color)
    let flashPixel = allocPixel(opts.flashColor)

    let window = XCreateSimpleWindow(dpy, root, opts.x, opts.y, opts.width, opts.height, 0, 0, pixel)

    // Ask the window manager for exactly this position and size.
    if let hints = XAllocSizeHints() {
        hints.pointee.flags = USPosition | USSize | PPosition | PSize
        hints.pointee.x = opts.x
        hints.pointee.y = opts.y
        hints.pointee.width = Int32(opts.width)
        hints.pointee.height = Int32(opts.height)
        XSetWMNormalHints(dpy, window, hints)
        XFree(hints)
    }
    XStoreName(dpy, window, opts.name)
    let utf8 = XInternAtom(dpy, "UTF8_STRING", False)
    let netWMName = XInternAtom(dpy, "_NET_WM_NAME", False)
    let nameBytes = Array(opts.name.utf8)
    nameBytes.withUnsafeBufferPointer { buf in
        _ = XChangeProperty(dpy, window, netWMName, utf8, 8, PropModeReplace, buf.baseAddress, Int32(buf.count))
    }
    let netWMPid = XInternAtom(dpy, "_NET_WM_PID", False)
    let pidValue = [Int(getpid())]
    pidValue.withUnsafeBytes { raw in
        _ = XChangeProperty(dpy, window, netWMPid, XA_CARDINAL, 32, PropModeReplace,
                            raw.baseAddress!.assumingMemoryBound(to: UInt8.self), 1)
    }
    if let classHint = XAllocClassHint() {
        classHint.pointee.res_name = strdup("rk-testwindow")
        classHint.pointee.res_class = strdup("RKTestWindow")
        XSetClassHint(dpy, window, classHint)
        XFree(classHint)
    }

    XSelectInput(dpy, window, ExposureMask | StructureNotifyMask)
    let gc = XCreateGC(dpy, window, 0, nil)
    var width = opts.width
    var height = opts.height

    func paint(_ p: UInt) {
        XSetWindowBackground(dpy, window, p)
        XSetForeground(dpy, gc, p)
        XFillRectangle(dpy, window, gc, 0, 0, width, height)
    }

    XMapWindow(dpy, window)
    XFlush(dpy)

    var mapped = false
    var announced = false
    // Once mapped and painted: check that the window is where it was asked to be (a window
    // manager may place it elsewhere), move it back if not, then announce its id.
    var placeCheck = Double.infinity
    var placeGiveUp = Double.infinity
    func absolutePosition() -> (Int32, Int32) {
        var x: Int32 = 0, y: Int32 = 0
        var child: Window = 0
        XTranslateCoordinates(dpy, window, root, 0, 0, &x, &y, &child)
        return (x, y)
    }
    var flashing = false
    var nextFlash = Double.infinity
    var flashEnd = Double.infinity
    let fd = XConnectionNumber(dpy)
    var nextSquare = Double.infinity
    var squareCount = 0
    let blackPixel = allocPixel(0x000000)
    let whitePixel = allocPixel(0xFFFFFF)
    var counterStart = Double.infinity
    var counterShown = -1
    /// Draws counter value `n` into the top half: 16 cells, most significant bit left.
    func paintCounter(_ n: Int) {
        let cells = 16
        let band = height / 2
        for i in 0..<cells {
            let x0 = Int32(Int(width) * i / cells), x1 = Int32(Int(width) * (i + 1) / cells)
            let bit = (n >> (cells - 1 - i)) & 1
            XSetForeground(dpy, gc, bit == 1 ? whitePixel : blackPixel)
            XFillRectangle(dpy, window, gc, x0, 0, UInt32(x1 - x0), band)
        }
    }

    while true {
        while XPending(dpy) > 0 {
            var ev = XEvent()
            XNextEvent(dpy, &ev)
            switch ev.type {
            case MapNotify:
                mapped = true
            case ConfigureNotify:
                width = UInt32(max(1, ev.xconfigure.width))
                height = UInt32(max(1, ev.xconfigure.height))
            case Expose:
                if ev.xexpose.count == 0 {
                    paint(flashing ? flashPixel : pixel)
                    if counterShown >= 0 { paintCounter(counterShown) }
                    if mapped && !announced && placeCheck == .infinity { placeCheck = monotonicNow() }
                }
            default:
                break
            }
        }
        let now = monotonicNow()
        if !announced && now >= placeCheck {
            XSync(dpy, False)
            let (x, y) = absolutePosition()
            if placeGiveUp == .infinity { placeGiveUp = now + 3 }
            if (x, y) == (opts.x, opts.y) || now >= placeGiveUp {
                if (x, y) != (opts.x, opts.y) {
                    fail("window manager keeps the window at \(x),\(y) instead of \(opts.x),\(opts.y)", code: 70)
                }
                announced = true
                placeCheck = .infinity
                writeOut("0x" + String(window, radix: 16) + "\n")
                if let every = opts.flashEvery { nextFlash = monotonicNow() + every }
                if let every = opts.squareEvery { nextSquare = monotonicNow() + every }
                if let rate = opts.counterRate {
                    counterStart = monotonicNow()
                    counterShown = 0
                    paintCounter(0)
                    XSync(dpy, False)
                    writeOut("counter start \(formatTime(counterStart)) rate \(rate)\n")
                }
            } else {
                writeErr("window placed at \(x),\(y), moving it to \(opts.x),\(opts.y)")
                XMoveWindow(dpy, window, opts.x, opts.y)
                XSync(dpy, False)
                placeCheck = now + 0.05
            }
        }
        if flashing && now >= flashEnd {
            flashing = false
            paint(pixel)
            XSync(dpy, False)
            flashEnd = .infinity
        }
        if !flashing && now >= nextFlash, let every = opts.flashEvery {
            flashing = true
            paint(flashPixel)
            XSync(dpy, False)
            let t = monotonicNow()
            writeOut("flash \(formatTime(t))\n")
            flashEnd = t + 0.1
            nextFlash += every
            if nextFlash < t { nextFlash = t + every }  // never queue up missed flashes
        }
        if now >= nextSquare, let every = opts.squareEvery {
            squareCount += 1
            XSetForeground(dpy, gc, squareCount % 2 == 1 ? flashPixel : blackPixel)
            XFillRectangle(dpy, window, gc, 16, 16, 32, 32)
            XSync(dpy, False)
            let t = monotonicNow()
            writeOut("square \(squareCount) \(formatTime(t))\n")
            nextSquare += every
            if nextSquare < t { nextSquare = t + every }
        }
        var nextCount = Double.infinity
        if let rate = opts.counterRate, counterStart.isFinite {
            let due = Int(((now - counterStart) * rate).rounded(.down))
            if due != counterShown {
                counterShown = due
                paintCounter(due)
            }
            nextCount = counterStart + Double(due + 1) / rate
        }
        XFlush(dpy)
        let deadline = min(flashing ? flashEnd : nextFlash, nextSquare, placeCheck, nextCount, now + 1.0)
        let timeoutMs = Int32(max(0, min(1000, (deadline - monotonicNow()) * 1000)).rounded(.up))
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&pfd, 1, timeoutMs)
    }
}
