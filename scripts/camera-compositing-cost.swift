// The camera overlay's two per-frame costs alone, before and after compositing in place
// (scripts/camera-compositing-cost.sh builds this with the scalers of 595395e, ba0ddf9 and today's):
// scaling a 320x240 camera picture to the 480x360 corner, and the composite's copies for one
// 1080p frame. CPU time of this process, 300 repetitions each.
import Glibc

func cpuSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

let (sw, sh, w, h) = (320, 240, 480, 360)
let n = 300
var source = [UInt32](repeating: 0, count: sw * sh)
for i in source.indices { source[i] = UInt32(truncatingIfNeeded: i &* 2_654_435_761) }
var check: UInt32 = 0

var start = cpuSeconds()
for k in 0..<n {
    let p = source.withUnsafeBytes {
        OldScaledPicture.scaled($0.baseAddress!, bytesPerRow: sw * 4, width: sw, height: sh, redFirst: false, to: w, h, captureNs: 0, serial: k)
    }
    check &+= p.pixels[k]
}
let oldScale = (cpuSeconds() - start) / Double(n)
// CPU time per picture of `scale(source, into)` writing a fresh 480x360 picture each time.
func perPicture(_ scale: (UnsafeRawPointer, UnsafeMutablePointer<UInt32>) -> Void) -> Double {
    let start = cpuSeconds()
    for k in 0..<n {
        let pixels = [UInt32](unsafeUninitializedCapacity: w * h) { buffer, count in
            count = w * h
            source.withUnsafeBytes { scale($0.baseAddress!, buffer.baseAddress!) }
        }
        check &+= pixels[k]
    }
    return (cpuSeconds() - start) / Double(n)
}
var swiftScaler = SwiftPictureScaler(sourceWidth: sw, sourceHeight: sh, width: w, height: h)
let swiftScale = perPicture { swiftScaler.scale($0, bytesPerRow: sw * 4, redFirst: false, into: $1) }
var scaler = CameraPictureScaler(sourceWidth: sw, sourceHeight: sh, width: w, height: h)
let newScale = perPicture { scaler.scale($0, bytesPerRow: sw * 4, redFirst: false, into: $1) }
let before = source.withUnsafeBytes {
    OldScaledPicture.scaled($0.baseAddress!, bytesPerRow: sw * 4, width: sw, height: sh, redFirst: false, to: w, h, captureNs: 0, serial: 0)
}
var swiftAfter = [UInt32](repeating: 0, count: w * h)
source.withUnsafeBytes { swiftScaler.scale($0.baseAddress!, bytesPerRow: sw * 4, redFirst: false, into: &swiftAfter) }
var after = [UInt32](repeating: 0, count: w * h)
source.withUnsafeBytes { scaler.scale($0.baseAddress!, bytesPerRow: sw * 4, redFirst: false, into: &after) }

// The copies: before, the whole frame into the overlay's pool and the corner over it; after,
// the corner of the screen's own frame into the underlay (at most all of it) and the corner.
let frameBytes = 1920 * 1080 * 4, rowStride = 1920 * 4, cornerRow = w * 4, cornerOffset = 694 * rowStride + 1414 * 4
let slots = (0..<4).map { _ in UnsafeMutableRawPointer.allocate(byteCount: frameBytes, alignment: 4096) }
let screens = (0..<4).map { _ in UnsafeMutableRawPointer.allocate(byteCount: frameBytes, alignment: 4096) }
for p in slots + screens { memset(p, 1, frameBytes) }
let corner = UnsafeMutableRawPointer.allocate(byteCount: w * h * 4, alignment: 64)
let underlay = UnsafeMutableRawPointer.allocate(byteCount: w * h * 4, alignment: 64)
memset(corner, 2, w * h * 4)
start = cpuSeconds()
for k in 0..<n {
    let out = slots[k % 4], screen = screens[k % 4]
    memcpy(out, screen, frameBytes)
    for row in 0..<h { memcpy(out + cornerOffset + row * rowStride, corner + row * cornerRow, cornerRow) }
}
let oldCopy = (cpuSeconds() - start) / Double(n)
start = cpuSeconds()
for k in 0..<n {
    let screen = screens[k % 4]
    for row in 0..<h { memcpy(underlay + row * cornerRow, screen + cornerOffset + row * rowStride, cornerRow) }
    for row in 0..<h { memcpy(screen + cornerOffset + row * rowStride, corner + row * cornerRow, cornerRow) }
}
let newCopy = (cpuSeconds() - start) / Double(n)

func ms(_ s: Double) -> String { String(Int((s * 1_000_000).rounded())) + " us" }
print("scaling 320x240 to 480x360: 595395e \(ms(oldScale)), Swift separable (ba0ddf9) \(ms(swiftScale)), "
    + "today's (C) \(ms(newScale)) a picture; same pixels: \(before.pixels == swiftAfter && swiftAfter == after)")
print("compositing copies, 1080p: before \(ms(oldCopy)), after \(ms(newCopy)) a frame (checksum \(check))")
print("at 30 fps: before \(ms((oldScale + oldCopy) * 30)), after \(ms((newScale + newCopy) * 30)) CPU per second")
