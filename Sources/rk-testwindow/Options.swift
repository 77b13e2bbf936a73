import Glibc

/// The command line of rk-testwindow (main.swift describes each option).
struct Options: Sendable {
    var width: UInt32 = 640
    var height: UInt32 = 480
    var x: Int32 = 100
    var y: Int32 = 100
    var color: UInt32 = 0x3366CC
    var flashColor: UInt32 = 0xFFFFFF
    var name = "rk-testwindow"
    var flashEvery: Double? = nil
    var squareEvery: Double? = nil
    var counterRate: Double? = nil
}

/// `RRGGBB`, `#RRGGBB` or `0xRRGGBB`; nil otherwise.
func parseColor(_ s: String) -> UInt32? {
    var hex = Substring(s)
    if hex.hasPrefix("#") { hex = hex.dropFirst() } else if hex.lowercased().hasPrefix("0x") { hex = hex.dropFirst(2) }
    guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return nil }
    return v
}

/// The options of this command line; exits 64 (after saying why) on a bad one, 0 after `--help`.
func parseOptions() -> Options {
    var o = Options()
    var args = CommandLine.arguments.dropFirst()
    func value(_ flag: String) -> String {
        guard let v = args.popFirst() else { fail("\(flag) needs a value", code: 64) }
        return v
    }
    while let a = args.popFirst() {
        switch a {
        case "--size":
            let v = value(a)
            let p = v.split(separator: "x")
            guard p.count == 2, let w = UInt32(p[0]), let h = UInt32(p[1]), w > 0, h > 0 else {
                fail("--size wants WxH, got \(v)", code: 64)
            }
            (o.width, o.height) = (w, h)
        case "--position":
            let v = value(a)
            let p = v.split(separator: ",", omittingEmptySubsequences: false)
            guard p.count == 2, let x = Int32(p[0]), let y = Int32(p[1]) else {
                fail("--position wants X,Y, got \(v)", code: 64)
            }
            (o.x, o.y) = (x, y)
        case "--color":
            let v = value(a)
            guard let c = parseColor(v) else { fail("--color wants RRGGBB, got \(v)", code: 64) }
            o.color = c
        case "--flash-color":
            let v = value(a)
            guard let c = parseColor(v) else { fail("--flash-color wants RRGGBB, got \(v)", code: 64) }
            o.flashColor = c
        case "--name":
            o.name = value(a)
        case "--flash-every":
            let v = value(a)
            guard let s = Double(v), s >= 0.2 else { fail("--flash-every wants SECONDS >= 0.2, got \(v)", code: 64) }
            o.flashEvery = s
        case "--square-every":
            let v = value(a)
            guard let s = Double(v), s >= 0.1 else { fail("--square-every wants SECONDS >= 0.1, got \(v)", code: 64) }
            o.squareEvery = s
        case "--counter":
            let v = value(a)
            guard let r = Double(v), r > 0, r <= 240 else { fail("--counter wants a RATE in 0<RATE<=240 steps per second, got \(v)", code: 64) }
            o.counterRate = r
        case "-h", "--help":
            writeOut("usage: rk-testwindow [--size WxH] [--position X,Y] [--color RRGGBB] [--name NAME] [--flash-every SECONDS] [--flash-color RRGGBB] [--square-every SECONDS] [--counter RATE]\n")
            exit(0)
        default:
            fail("unknown argument \(a) (see --help)", code: 64)
        }
    }
    return o
}
