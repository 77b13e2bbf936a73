import RecordKit
@testable import RecordKitCapture
import Synchronization
import XCTest

/// ``CameraPlacement`` (where the corner goes), ``ScaledCameraPicture`` (the scaling) and
/// ``CameraOverlaySource`` (the compositing, the live switch at its instant, repeats by the
/// frame rate mode, dirty rectangles), with synthetic screen and camera sources.
final class CameraOverlayTests: XCTestCase {
    /// Delivers the frames a test pushes, on the test's thread.
    private final class ScriptedScreen: VideoSource, @unchecked Sendable {
        let width: Int, height: Int
        var windowID: UInt? { nil }
        var statistics: ScreenCaptureStatistics { ScreenCaptureStatistics() }
        var onWindowGone: (@Sendable () -> Void)?
        var onFailure: (@Sendable (CaptureError) -> Void)?
        private(set) var deliver: (@Sendable (CapturedFrame) -> Void)?
        init(width: Int, height: Int) { self.width = width; self.height = height }
        func start(deliver: @escaping @Sendable (CapturedFrame) -> Void) { self.deliver = deliver }
        func stop() {}
    }

    /// Hands the pictures a test pushes to the overlay.
    private final class ScriptedCamera: CameraSource, @unchecked Sendable {
        let width: Int, height: Int
        var name: String { "scripted" }
        var endReason: String? { nil }
        private(set) var sink: CameraPictureSink?
        init(width: Int, height: Int) { self.width = width; self.height = height }
        func start(deliver: @escaping CameraPictureSink) { sink = deliver }
        func stop() {}
        /// A picture of one BGR0 colour captured at `ns`.
        func push(_ colour: UInt32, at ns: UInt64) {
            let pixels = [UInt32](repeating: colour, count: width * height)
            pixels.withUnsafeBytes { sink?($0.baseAddress!, width * 4, width, height, false, ns) }
        }
    }

    private static let blue: UInt32 = 0x0000_00FF, red: UInt32 = 0x00FF_0000, green: UInt32 = 0x0000_FF00

    private func screenFrame(_ buffer: MediaBuffer, width: Int, height: Int, at ns: UInt64, sequence: Int64, changed: Bool) -> CapturedFrame {
        CapturedFrame(pixels: buffer, bytesPerRow: width * 4, width: width, height: height, captureTime: ns, sequence: sequence,
                      isChanged: changed, dirtyRects: changed ? [] : nil, previousSequence: sequence > 0 ? sequence - 1 : nil)
    }

    private func pixel(_ frame: CapturedFrame, _ x: Int, _ y: Int) -> UInt32 {
        frame.pixels.bytes.load(fromByteOffset: y * frame.bytesPerRow + x * 4, as: UInt32.self) & 0x00FF_FFFF
    }

    func testPlacementPutsTheCornerInsideAnEvenRectangle() throws {
        let p = try CameraPlacement(position: "bottom-right", size: "25%")
        XCTAssertEqual(p.rect(screenWidth: 1920, screenHeight: 1080, cameraWidth: 320, cameraHeight: 240),
                       PixelRect(x: 1414, y: 694, width: 480, height: 360))
        let q = try CameraPlacement(position: "top-left", size: "10")
        XCTAssertEqual(q.rect(screenWidth: 640, screenHeight: 360, cameraWidth: 1280, cameraHeight: 720),
                       PixelRect(x: 8, y: 8, width: 64, height: 36))
        // 100 % of a wide camera on a tall picture: the height limits it, the margin goes.
        let r = try CameraPlacement(position: "top-right", size: "100%").rect(screenWidth: 400, screenHeight: 100, cameraWidth: 4, cameraHeight: 3)
        XCTAssertLessThanOrEqual(r.y + r.height, 100)
        XCTAssertLessThanOrEqual(r.x + r.width, 400)
        XCTAssertThrowsError(try CameraPlacement(position: "middle", size: "25%"))
        XCTAssertThrowsError(try CameraPlacement(position: "top-left", size: "0%"))
        XCTAssertThrowsError(try CameraPlacement(position: "top-left", size: "big"))
    }

    func testScalingKeepsAFlatColourAndSwapsRedFirstPictures() {
        let rgbRed = [UInt32](repeating: 0x0000_00FF, count: 8 * 6)  // R G B X bytes: red
        let scaled = rgbRed.withUnsafeBytes {
            ScaledCameraPicture.scaled($0.baseAddress!, bytesPerRow: 32, width: 8, height: 6, redFirst: true, to: 4, 3, captureNs: 1, serial: 1)
        }
        XCTAssertEqual(Set(scaled.pixels.map { $0 & 0x00FF_FFFF }), [Self.red])
    }

    func testCornerIsDrawnAndHiddenExactlyFromTheSwitchInstant() throws {
        let (w, h) = (64, 48)
        let screen = ScriptedScreen(width: w, height: h), camera = ScriptedCamera(width: 32, height: 24)
        let overlay = try CameraOverlaySource(screen: screen, camera: camera, placement: CameraPlacement(corner: .bottomRight, widthPercent: 50),
                                              mode: .constant)
        XCTAssertEqual(overlay.rect, PixelRect(x: 32, y: 24, width: 32, height: 24))
        let frames = Mutex<[CapturedFrame]>([])
        overlay.start { f in frames.withLock { $0.append(f) } }
        let pixels = [UInt32](repeating: Self.blue, count: w * h)
        let buffer = MediaBuffer(copying: pixels.withUnsafeBytes { Array($0) })
        let push = { (ns: UInt64, seq: Int64, changed: Bool) in screen.deliver?(self.screenFrame(buffer, width: w, height: h, at: ns, sequence: seq, changed: changed)) }

        camera.push(Self.red, at: 1_000)
        push(2_000, 0, true)
        camera.push(Self.green, at: 5_000)  // captured after the next screen frame: not shown on it
        push(3_000, 1, false)
        XCTAssertTrue(overlay.cameraSwitch.set(enabled: false, atNs: 4_000))
        XCTAssertFalse(overlay.cameraSwitch.set(enabled: false, atNs: 4_500), "already off")
        push(4_000, 2, false)
        XCTAssertTrue(overlay.cameraSwitch.set(enabled: true, atNs: 6_000))
        push(6_000, 3, false)
        let got = frames.withLock { $0 }
        XCTAssertEqual(got.count, 4)
        XCTAssertEqual(pixel(got[0], 40, 30), Self.red, "the corner")
        XCTAssertEqual(pixel(got[0], 10, 10), Self.blue, "the screen")
        XCTAssertFalse(got[1].isChanged, "same screen, same camera picture (the newer one is from the frame's future): a repeat")
        XCTAssertEqual(pixel(got[1], 40, 30), Self.red)
        XCTAssertTrue(got[2].isChanged)
        XCTAssertEqual(pixel(got[2], 40, 30), Self.blue, "off from the switch's instant: the screen shows through")
        XCTAssertEqual(got[2].dirtyRects, [overlay.rect], "only the corner changed")
        XCTAssertEqual(pixel(got[3], 40, 30), Self.green, "on again, with the newest picture")
        XCTAssertEqual(pixel(got[3], 31, 23), Self.blue, "outside the corner")
        XCTAssertEqual(got.map(\.sequence), [0, 1, 2, 3])
    }

    func testVariableFrameRateRepeatsOnlyEveryHalfSecond() throws {
        let screen = ScriptedScreen(width: 16, height: 16), camera = ScriptedCamera(width: 4, height: 4)
        let overlay = try CameraOverlaySource(screen: screen, camera: camera, placement: CameraPlacement(), mode: .variable)
        let count = Atomic<Int>(0)
        overlay.start { _ in count.add(1, ordering: .relaxed) }
        let buffer = MediaBuffer(copying: [UInt8](repeating: 0, count: 16 * 16 * 4))
        camera.push(Self.red, at: 1)
        for i in 0..<30 {  // one second of still ticks at 30 fps
            screen.deliver?(screenFrame(buffer, width: 16, height: 16, at: UInt64(i) * 33_333_333 + 10, sequence: Int64(i), changed: i == 0))
        }
        XCTAssertEqual(count.load(ordering: .relaxed), 2, "the first frame, then one repeat after half a second")
    }
}
