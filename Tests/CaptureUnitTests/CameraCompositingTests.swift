import RecordKit
@testable import RecordKitCapture
import Synchronization
import XCTest

/// How ``CameraOverlaySource`` makes its frames without copying the screen: drawn in place into
/// the frames of a source that lends them (``CornerUnderlay`` keeps the screen under the
/// corner), else in its own buffers brought up to date by their stale rectangles
/// (``OverlayFramePool``); and ``CameraPictureScaler`` against the bilinear formula it
/// implements. Every frame of a seeded random script (screen changes in and around the corner,
/// repeats, new camera pictures, the switch off and on, consumers holding frames) is checked
/// pixel by pixel against the picture it must show, and outside its dirty rectangles against
/// the frame before.
final class CameraCompositingTests: XCTestCase {
    /// A screen source driven by the test. `lends`: like X11, frames are pool buffers the
    /// receiver may write, each changed one made by copying the last delivered buffer as the
    /// receiver left it (all of it: the worst case) and painting the changed rectangle.
    /// Otherwise every changed frame is a fresh read-only copy of the true screen.
    private final class TestScreen: VideoSource, @unchecked Sendable {
        let width: Int, height: Int
        let lendsWritableFrames: Bool
        var windowID: UInt? { nil }
        var statistics: ScreenCaptureStatistics { ScreenCaptureStatistics() }
        var onWindowGone: (@Sendable () -> Void)?
        var onFailure: (@Sendable (CaptureError) -> Void)?
        private var deliver: (@Sendable (CapturedFrame) -> Void)?
        private let pool: FramePool
        private var last: MediaBuffer?
        private var sequence: Int64 = 0
        /// What the screen really shows.
        private(set) var truth: [UInt32]

        init(width: Int, height: Int, lends: Bool) {
            self.width = width
            self.height = height
            self.lendsWritableFrames = lends
            self.pool = FramePool(slotCount: 16, slotByteCount: width * height * 4, shared: false)!
            self.truth = [UInt32](repeating: 0x0020_2020, count: width * height)
        }
        func start(deliver: @escaping @Sendable (CapturedFrame) -> Void) { self.deliver = deliver }
        func stop() {}

        /// Paints `rect` with `colour` (a different one per row) and delivers the changed frame.
        func change(_ rect: PixelRect, colour: UInt32, at ns: UInt64) {
            for y in rect.y..<(rect.y + rect.height) {
                for x in rect.x..<(rect.x + rect.width) { truth[y * width + x] = colour &+ UInt32(y) }
            }
            let buffer: MediaBuffer
            if lendsWritableFrames {
                let slot = pool.acquire()!
                let pixels = pool.address(ofSlot: slot)
                if let last {
                    memcpy(pixels, last.bytes.baseAddress!, width * height * 4)
                    for y in rect.y..<(rect.y + rect.height) {
                        for x in rect.x..<(rect.x + rect.width) {
                            pixels.storeBytes(of: truth[y * width + x], toByteOffset: (y * width + x) * 4, as: UInt32.self)
                        }
                    }
                } else {
                    _ = truth.withUnsafeBytes { memcpy(pixels, $0.baseAddress!, width * height * 4) }
                }
                buffer = pool.buffer(slot: slot, byteCount: width * height * 4)
            } else {
                buffer = MediaBuffer(copying: truth.withUnsafeBytes { Array($0) })
            }
            let first = last == nil
            last = buffer
            send(buffer, at: ns, changed: true, dirty: first ? nil : [rect])
        }

        /// Delivers the last picture again, unchanged.
        func repeatLast(at ns: UInt64) { send(last!, at: ns, changed: false, dirty: []) }

        private func send(_ buffer: MediaBuffer, at ns: UInt64, changed: Bool, dirty: [PixelRect]?) {
            deliver?(CapturedFrame(pixels: buffer, bytesPerRow: width * 4, width: width, height: height, captureTime: ns,
                                   sequence: sequence, isChanged: changed, dirtyRects: dirty,
                                   previousSequence: sequence > 0 ? sequence - 1 : nil))
            sequence += 1
        }
    }

    /// Hands flat-coloured pictures to the overlay.
    private final class TestCamera: CameraSource, @unchecked Sendable {
        let width: Int, height: Int
        var name: String { "test" }
        var endReason: String? { nil }
        private var sink: CameraPictureSink?
        init(width: Int, height: Int) { self.width = width; self.height = height }
        func start(deliver: @escaping CameraPictureSink) { sink = deliver }
        func stop() {}
        func push(_ colour: UInt32, at ns: UInt64) {
            let pixels = [UInt32](repeating: colour, count: width * height)
            pixels.withUnsafeBytes { sink?($0.baseAddress!, width * 4, width, height, false, ns) }
        }
    }

    /// A small deterministic generator (the script must be the same on every run).
    private struct Script {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    func testFramesDrawnInPlaceShowTheScreenUnderTheCornerWhenTheCameraIsOff() throws {
        try runScript(lends: true, seed: 1)
        try runScript(lends: true, seed: 7)
    }

    func testFramesInTheOverlaysOwnBuffersAreUpToDate() throws {
        try runScript(lends: false, seed: 3)
        try runScript(lends: false, seed: 11)
    }

    /// 300 ticks of a random script; every delivered frame checked.
    private func runScript(lends: Bool, seed: UInt64) throws {
        let (w, h) = (64, 48)
        let screen = TestScreen(width: w, height: h, lends: lends), camera = TestCamera(width: 32, height: 24)
        let overlay = try CameraOverlaySource(screen: screen, camera: camera, placement: CameraPlacement(corner: .bottomRight, widthPercent: 50),
                                              mode: .constant)
        let corner = overlay.rect
        let delivered = Mutex<[CapturedFrame]>([])
        overlay.start { f in delivered.withLock { $0.append(f) } }
        var script = Script(state: seed)
        var cameraColour: UInt32 = 0x0000_00FF
        var shown = true
        var held: [CapturedFrame] = []      // frames "consumers" still hold, so buffers come back out of order
        var previous: [UInt32]?
        camera.push(cameraColour, at: 1)
        screen.change(PixelRect(x: 0, y: 0, width: w, height: h), colour: 0x0010_1010, at: 10)
        XCTAssertEqual(delivered.withLock { list in defer { list.removeAll() }; return list.count }, 1, "the first frame")
        for tick in 1...300 {
            let ns = UInt64(tick) * 1_000 + 10
            switch script.next(10) {
            case 0, 1, 2:
                let x = script.next(w - 2) & ~1, y = script.next(h - 2) & ~1
                let rect = PixelRect(x: x, y: y, width: min(2 + script.next(24) & ~1, w - x), height: min(2 + script.next(18) & ~1, h - y))
                screen.change(rect, colour: UInt32(tick) << 8, at: ns)
            case 3, 4:
                cameraColour = UInt32(0x40 + tick % 190) << 16 | 0x33
                camera.push(cameraColour, at: ns - 1)
                screen.repeatLast(at: ns)
            case 5:
                shown.toggle()
                XCTAssertTrue(overlay.cameraSwitch.set(enabled: shown, atNs: ns))
                screen.repeatLast(at: ns)
            case 6:
                cameraColour = UInt32(0x40 + tick % 190) << 8
                camera.push(cameraColour, at: ns - 1)
                let x = corner.x - 8 + script.next(corner.width) & ~1, y = corner.y - 6 + script.next(corner.height) & ~1
                screen.change(PixelRect(x: x, y: y, width: min(12, w - x), height: min(10, h - y)), colour: UInt32(tick) << 16, at: ns)
            default:
                screen.repeatLast(at: ns)
            }
            let frames = delivered.withLock { list in defer { list.removeAll() }; return list }
            XCTAssertEqual(frames.count, 1, "tick \(tick): one frame per screen frame")
            guard let frame = frames.first else { continue }
            let pixels = (0..<(w * h)).map { i in
                frame.pixels.bytes.load(fromByteOffset: (i / w) * frame.bytesPerRow + (i % w) * 4, as: UInt32.self) & 0x00FF_FFFF
            }
            for y in 0..<h {
                for x in 0..<w {
                    let inCorner = x >= corner.x && x < corner.x + corner.width && y >= corner.y && y < corner.y + corner.height
                    let expected = (inCorner && shown ? cameraColour : screen.truth[y * w + x]) & 0x00FF_FFFF
                    guard pixels[y * w + x] == expected else {
                        return XCTFail("seed \(seed), tick \(tick), \(x),\(y): \(String(pixels[y * w + x], radix: 16)), expected \(String(expected, radix: 16)) (camera \(shown ? "on" : "off"))")
                    }
                }
            }
            if let previous, let dirty = frame.dirtyRects {
                for y in 0..<h {
                    for x in 0..<w where !dirty.contains(where: { x >= $0.x && x < $0.x + $0.width && y >= $0.y && y < $0.y + $0.height }) {
                        guard pixels[y * w + x] == previous[y * w + x] else {
                            return XCTFail("seed \(seed), tick \(tick), \(x),\(y) changed outside the dirty rectangles \(dirty)")
                        }
                    }
                }
            }
            previous = pixels
            held.append(frame)
            while held.count > script.next(5) { held.remove(at: script.next(held.count)) }
        }
        XCTAssertEqual(overlay.statistics.droppedPoolExhausted, 0)
    }

    func testScalerGivesTheBilinearFormulasValues() {
        var script = Script(state: 5)
        // Up and down, odd sizes, and sizes past the C loops' vector widths (their tails).
        for (sw, sh, sizes) in [(13, 7, [(20, 11), (6, 5), (13, 14), (1, 1), (5, 3)]), (80, 60, [(120, 90), (37, 29)])] {
            let source = (0..<(sw * sh)).map { _ in UInt32(script.next(1 << 24)) | UInt32(script.next(256)) << 24 }
            for (width, height) in sizes {
                for redFirst in [false, true] {
                    let scaled = source.withUnsafeBytes {
                        ScaledCameraPicture.scaled($0.baseAddress!, bytesPerRow: sw * 4, width: sw, height: sh, redFirst: redFirst,
                                                   to: width, height, captureNs: 0, serial: 0)
                    }
                    for y in 0..<height {
                        for x in 0..<width {
                            let expected = Self.bilinear(source, sw, sh, x, y, width, height, redFirst: redFirst)
                            guard scaled.pixels[y * width + x] == expected else {
                                return XCTFail("\(sw)x\(sh) to \(width)x\(height) at \(x),\(y): \(String(scaled.pixels[y * width + x], radix: 16)), "
                                    + "expected \(String(expected, radix: 16))")
                            }
                        }
                    }
                }
            }
        }
    }

    /// The store writes new pictures over the pixels of pictures it let go of, never over a
    /// picture it keeps or one the capture thread still holds.
    func testStoreReusesOnlyPicturesNobodyHolds() {
        let (sw, sh) = (8, 6)
        let store = CameraPictureStore(width: 12, height: 9)
        func push(_ colour: UInt32, at ns: UInt64) {
            let pixels = [UInt32](repeating: colour, count: sw * sh)
            pixels.withUnsafeBytes { store.receive($0.baseAddress!, bytesPerRow: sw * 4, width: sw, height: sh, redFirst: false, captureNs: ns) }
        }
        push(0x11, at: 1)
        let held = store.picture(for: 1)!
        for n in 2...40 {
            push(UInt32(n), at: UInt64(n))
            // Every kept picture still shows its own colour (the oldest kept is n - 9).
            for m in max(2, n - 9)...n {
                XCTAssertEqual(store.picture(for: UInt64(m))?.pixels, [UInt32](repeating: UInt32(m), count: 12 * 9), "picture \(m) after \(n)")
            }
            XCTAssertEqual(held.pixels, [UInt32](repeating: 0x11, count: 12 * 9), "the held picture after picture \(n)")
        }
    }

    /// The formula: pixel centres mapped in 1/256 pixels, 8-bit weights, `(top · (256 - wy) +
    /// bottom · wy) >> 16` per channel; X becomes 0; R and B swapped for red-first cameras.
    private static func bilinear(_ p: [UInt32], _ sw: Int, _ sh: Int, _ x: Int, _ y: Int, _ w: Int, _ h: Int, redFirst: Bool) -> UInt32 {
        let fx = max(0, min((sw - 1) * 256, (2 * x + 1) * sw * 256 / (2 * w) - 128))
        let fy = max(0, min((sh - 1) * 256, (2 * y + 1) * sh * 256 / (2 * h) - 128))
        let (x0, y0, wx, wy) = (fx >> 8, fy >> 8, UInt32(fx & 255), UInt32(fy & 255))
        let (x1, y1) = (min(x0 + 1, sw - 1), min(y0 + 1, sh - 1))
        var out: UInt32 = 0
        for shift: UInt32 in [0, 8, 16] {
            let c = { (i: Int) in (p[i] >> shift) & 255 }
            let top = c(y0 * sw + x0) * (256 - wx) + c(y0 * sw + x1) * wx
            let bottom = c(y1 * sw + x0) * (256 - wx) + c(y1 * sw + x1) * wx
            out |= (((top * (256 - wy) + bottom * wy) >> 16) & 255) << shift
        }
        return redFirst ? (out & 0x0000_FF00) | ((out & 0xFF) << 16) | ((out >> 16) & 0xFF) : out
    }
}
