import Foundation
import RecordKit
import RecordKitCapture
import Synchronization
import XCTest

/// Damage-driven capture at the library level, on a real X server: what a still
/// screen delivers in each frame-rate mode, and that incremental frames (damaged rectangles
/// grabbed into a buffer that held an older picture) show exactly the screen, also while
/// consumers hold several frames so pool buffers rotate.
final class DamageCaptureLibraryTests: XCTestCase {
    /// Frames kept with their info, newest last.
    private final class Frames: Sendable {
        let kept = Mutex<[CapturedFrame]>([])
        let limit: Int
        init(limit: Int) { self.limit = limit }
        func add(_ frame: CapturedFrame) {
            kept.withLock {
                $0.append(frame)
                if $0.count > limit { $0.removeFirst() }
            }
        }
        var all: [CapturedFrame] { kept.withLock { $0 } }
        /// Waits (3 s at most) for a frame after `sequence` matching `condition`.
        func next(after sequence: Int64, _ condition: @escaping (CapturedFrame) -> Bool) -> CapturedFrame? {
            let deadline = Date().addingTimeInterval(3)
            while Date() < deadline {
                if let f = kept.withLock({ $0.first { $0.sequence > sequence && condition($0) } }) { return f }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return nil
        }
    }

    private func bgr(_ frame: CapturedFrame, _ x: Int, _ y: Int) -> [UInt8] {
        let offset = y * frame.bytesPerRow + x * 4
        return [frame.pixels.bytes[offset], frame.pixels.bytes[offset + 1], frame.pixels.bytes[offset + 2]]
    }

    func testStillScreenRepeatsTheSameBufferInConstantMode() throws {
        let x = try ScreenCaptureTestDisplay()
        x.paintRoot(0x000000)
        let capture = try ScreenCapture(configuration: .init(display: x.name, target: .screen, showsCursor: false,
                                                             frameRateMode: .constant))
        let frames = Frames(limit: 100)
        capture.start(deliver: frames.add)
        Thread.sleep(forTimeInterval: 1.5)
        capture.stop()
        let got = frames.all
        let stats = capture.statistics
        XCTAssertTrue(stats.damageTracking, "the test display has DAMAGE")
        XCTAssertGreaterThanOrEqual(got.count, 40, "every tick delivers a frame in constant mode")
        let repeats = got.filter { !$0.isChanged }
        XCTAssertGreaterThanOrEqual(repeats.count, got.count - 3, "a still screen repeats its picture: \(stats)")
        XCTAssertLessThanOrEqual(stats.grabs, 3, "and grabs nothing: \(stats)")
        for (a, b) in zip(got, got.dropFirst()) where !b.isChanged {
            XCTAssertEqual(b.previousSequence, a.sequence, "a repeat is relative to the frame before it")
            XCTAssertEqual(b.pixels.bytes.baseAddress, a.pixels.bytes.baseAddress, "a repeat is the same buffer, no copy")
            XCTAssertEqual(b.dirtyRects, [])
        }
    }

    func testStillScreenInVariableModeDeliversAFrameEveryHalfSecond() throws {
        let x = try ScreenCaptureTestDisplay()
        x.paintRoot(0x000000)
        let capture = try ScreenCapture(configuration: .init(display: x.name, target: .screen, showsCursor: false,
                                                             frameRateMode: .variable))
        let frames = Frames(limit: 100)
        capture.start(deliver: frames.add)
        Thread.sleep(forTimeInterval: 3.2)
        capture.stop()
        let got = frames.all
        XCTAssertTrue((6...10).contains(got.count), "about two frames a second on a still screen, got \(got.count)")
        for (a, b) in zip(got, got.dropFirst()) {
            XCTAssertLessThanOrEqual(b.sequence - a.sequence, 15, "never more than half a second without a frame")
        }
    }

    func testIncrementalFramesShowExactlyTheScreenWhileBuffersRotate() throws {
        let x = try ScreenCaptureTestDisplay()
        x.paintRoot(0x000000)
        let capture = try ScreenCapture(configuration: .init(display: x.name, target: .screen, showsCursor: false,
                                                             frameRateMode: .variable))
        // Hold the last 5 frames: new frames go to buffers that last held older pictures.
        let frames = Frames(limit: 5)
        capture.start(deliver: frames.add)
        defer { capture.stop() }
        guard let first = frames.next(after: -1, { _ in true }) else { return XCTFail("no first frame") }
        let window = x.makeWindow(title: "rk-damage-probe", rgb: 0xff0000, x: 100, y: 100, width: 64, height: 64)
        defer { x.destroy(window) }
        var last = first.sequence
        var positions: [(Int, Int)] = [(100, 100)]
        for step in 1...8 {
            let (wx, wy) = (100 + step * 90, 100 + (step % 3) * 70)
            x.move(window, x: wx, y: wy)
            positions.append((wx, wy))
            guard let frame = frames.next(after: last, { f in
                f.isChanged && self.bgr(f, wx + 32, wy + 32) == [0, 0, 255]
            }) else { return XCTFail("step \(step): no frame shows the window at \(wx),\(wy)") }
            last = frame.sequence
            let rects = try XCTUnwrap(frame.dirtyRects, "an incremental frame says what changed")
            XCTAssertTrue(rects.contains { $0.x <= wx && $0.y <= wy && $0.x + $0.width >= wx + 64 && $0.y + $0.height >= wy + 64 },
                          "step \(step): the window's new place is dirty: \(rects)")
            let area = rects.reduce(0) { $0 + $1.width * $1.height }
            XCTAssertLessThan(area, frame.width * frame.height / 10, "step \(step): only a little is grabbed: \(rects)")
            // Every earlier place is black again, the current one red, edges exact.
            for (px, py) in positions.dropLast() where abs(px - wx) >= 64 || abs(py - wy) >= 64 {
                XCTAssertEqual(bgr(frame, px + 32, py + 32), [0, 0, 0], "step \(step): old place \(px),\(py) was cleared")
            }
            XCTAssertEqual(bgr(frame, wx, wy), [0, 0, 255], "step \(step): top-left pixel of the window")
            XCTAssertEqual(bgr(frame, wx + 63, wy + 63), [0, 0, 255], "step \(step): bottom-right pixel of the window")
            XCTAssertEqual(bgr(frame, wx - 1, wy), [0, 0, 0], "step \(step): left of the window")
            XCTAssertEqual(bgr(frame, wx + 64, wy + 63), [0, 0, 0], "step \(step): right of the window")
            XCTAssertEqual(bgr(frame, 1500, 900), [0, 0, 0], "step \(step): far away")
        }
        let stats = capture.statistics
        XCTAssertLessThan(stats.grabbedPixels, Int64(first.width * first.height) * 2,
                          "moves of a small window are grabbed as small rectangles: \(stats)")
    }
}
