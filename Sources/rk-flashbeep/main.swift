// rk-flashbeep: an A/V sync stimulus for tests. A black X11 window turns white for 100 ms at
// the very instant a 3 kHz beep of 100 ms becomes audible in a PulseAudio sink.
//
//   rk-flashbeep [--size WxH] [--position X,Y] [--every SECONDS] [--sink NAME] [--name NAME]
//
// Audio: a playback stream with a 20 ms target buffer writes 10 ms chunks of silence without
// pause, so the sink's clock paces it. To beep it writes the beep and asks the server how long
// until that data is played (pa_simple_get_latency); the window flashes after exactly that
// delay. Prints the window id (0x...) once mapped, then `beep <monotonic s>` per stimulus.
import CPulse
import CShims
import CX11
import Foundation
import Glibc
import RecordKitSupport
import Synchronization

func fail(_ message: String, _ code: Int32) -> Never {
    let line = "rk-flashbeep: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(code)
}

func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(1, $0, strlen($0)) }
}

var width: UInt32 = 640, height: UInt32 = 360, posX: Int32 = 100, posY: Int32 = 100
var every = 1.0, sinkName = "app_sink", windowName = "rk-flashbeep"
var args = Array(CommandLine.arguments.dropFirst())
while !args.isEmpty {
    let flag = args.removeFirst()
    guard let value = args.first else { fail("\(flag) needs a value", 64) }
    args.removeFirst()
    switch flag {
    case "--size":
        let p = value.split(separator: "x").compactMap { UInt32($0) }
        guard p.count == 2 else { fail("bad --size \(value)", 64) }
        (width, height) = (p[0], p[1])
    case "--position":
        let p = value.split(separator: ",").compactMap { Int32($0) }
        guard p.count == 2 else { fail("bad --position \(value)", 64) }
        (posX, posY) = (p[0], p[1])
    case "--every": every = Double(value) ?? 1.0
    case "--sink": sinkName = value
    case "--name": windowName = value
    default: fail("unknown option \(flag)", 64)
    }
}

// MARK: X window
XInitThreads()
guard let display = XOpenDisplay(nil) else { fail("cannot open display", 69) }
let screen = XDefaultScreen(display)
let root = XRootWindow(display, screen)
let black = XBlackPixel(display, screen), white = XWhitePixel(display, screen)
let window = XCreateSimpleWindow(display, root, posX, posY, width, height, 0, black, black)
XStoreName(display, window, windowName)
var hints = XSizeHints()
hints.flags = PPosition | PSize | USPosition
hints.x = posX; hints.y = posY; hints.width = Int32(width); hints.height = Int32(height)
XSetWMNormalHints(display, window, &hints)
XSelectInput(display, window, ExposureMask | StructureNotifyMask)
XMapWindow(display, window)
XMoveWindow(display, window, posX, posY)
let gc = XCreateGC(display, window, 0, nil)
XSync(display, 0)
var event = XEvent()
repeat { XNextEvent(display, &event) } while event.type != MapNotify
XMoveWindow(display, window, posX, posY)
XSync(display, 0)

@MainActor func paint(_ pixel: UInt) {
    XSetForeground(display, gc, pixel)
    XFillRectangle(display, window, gc, 0, 0, width, height)
    XSync(display, 0)
}
paint(black)
say("0x" + String(window, radix: 16))

// MARK: Audio
let rate = 48_000, chunk = 480  // 10 ms
var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(rate), channels: 1)
var attr = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32(rate / 50 * 4), prebuf: UInt32.max,
                          minreq: UInt32(chunk * 4), fragsize: UInt32.max)
var err: Int32 = 0
guard let pa = pa_simple_new(nil, "rk-flashbeep", PA_STREAM_PLAYBACK, sinkName, "sync beep", &spec, nil, &attr, &err) else {
    fail("cannot open a playback stream on \(sinkName): \(String(cString: pa_strerror(err)))", 69)
}
let silence = [Float](repeating: 0, count: chunk)
var beep = [Float](repeating: 0, count: chunk * 10)
for i in beep.indices { beep[i] = 0.5 * sin(2 * Float.pi * 3000 * Float(i) / Float(rate)) }

// The flash runs on a thread of its own, so the audio loop never stops writing (a blocking
// write of the beep must not delay the flash, and a paused writer would underrun the sink).
/// The next flash instant (0: none), handed from the audio loop to the flash thread.
final class FlashSchedule: Sendable {
    private let deadline = Atomic<UInt64>(0)
    func post(_ d: UInt64) { deadline.store(d, ordering: .releasing) }
    func take() -> UInt64 { deadline.exchange(0, ordering: .acquiringAndReleasing) }
}
let schedule = FlashSchedule()
nonisolated(unsafe) let flashGC = gc
nonisolated(unsafe) let flashDisplay = display
let flashWindow = window, flashW = width, flashH = height
let flashBlack = black, flashWhite = white
Thread.detachNewThread {
    func fill(_ pixel: UInt) {
        XSetForeground(flashDisplay, flashGC, pixel)
        XFillRectangle(flashDisplay, flashWindow, flashGC, 0, 0, flashW, flashH)
        XSync(flashDisplay, 0)
    }
    while true {
        let at = schedule.take()
        if at == 0 { usleep(1000); continue }
        _ = cshim_sleep_until_ns(at)
        fill(flashWhite)
        say("beep \(Double(MonotonicClock.nanoseconds()) / 1e9)")
        _ = cshim_sleep_until_ns(at + 100_000_000)
        fill(flashBlack)
    }
}

let periodNs = UInt64(every * 1e9)
var nextBeep = MonotonicClock.nanoseconds() + 1_000_000_000
var beepLeft = 0  // chunks of the current beep still to write
while true {
    let now = MonotonicClock.nanoseconds()
    if beepLeft == 0 && now >= nextBeep {
        nextBeep += periodNs
        // The beep's first sample plays after everything already queued: the reported latency.
        let latencyUs = pa_simple_get_latency(pa, &err)
        schedule.post(now + latencyUs * 1000)
        beepLeft = beep.count / chunk
    }
    if beepLeft > 0 {
        let offset = (beep.count / chunk - beepLeft) * chunk
        _ = beep[offset..<(offset + chunk)].withUnsafeBytes { pa_simple_write(pa, $0.baseAddress, $0.count, &err) }
        beepLeft -= 1
    } else {
        _ = silence.withUnsafeBytes { pa_simple_write(pa, $0.baseAddress, $0.count, &err) }
    }
}
