import Foundation
import RecordKit
import RecordKitCapture
import Synchronization
import XCTest

/// Screen capture against a real X server: set `RK_TEST_DISPLAY` (or `DISPLAY`), e.g. to an
/// `Xvfb :57 -screen 0 1920x1080x24`. Without one, the display tests skip.
final class ScreenCaptureTests: XCTestCase {

    // MARK: Parsing (no display needed)

    func testRegionParsesX11Geometry() throws {
        XCTAssertEqual(try PixelRect.parse("640x480+100+50"), PixelRect(x: 100, y: 50, width: 640, height: 480))
        XCTAssertEqual(try PixelRect.parse(" 2X2+0+0\n"), PixelRect(x: 0, y: 0, width: 2, height: 2))
        XCTAssertEqual(PixelRect(x: 1, y: 2, width: 3, height: 4).description, "3x4+1+2")
    }

    func testMalformedRegionIsBadRegionQuotingInputAndForm() {
        for text in ["", "640x480", "640x480+10", "abc", "640x480-10+5", "-640x480+1+1", "0x480+1+1",
                     "640x0+1+1", "640x480+1+1+1", "640x480++1", "640 x480+1+1", "1e3x480+1+1"] {
            XCTAssertThrowsError(try PixelRect.parse(text), "\"\(text)\" should be rejected") { error in
                guard let error = error as? CaptureError else { return XCTFail("not a CaptureError: \(error)") }
                XCTAssertEqual(error.kind, .badRegion)
                XCTAssertTrue(error.message.contains("\"\(text)\""), error.message)
                XCTAssertTrue(error.message.contains("WIDTHxHEIGHT+X+Y"), error.message)
            }
        }
    }

    func testWindowSelectorReadsIdsAndTitles() {
        XCTAssertEqual(WindowSelector.parse("0x3a00007"), .id(0x3a00007))
        XCTAssertEqual(WindowSelector.parse("0X3A00007"), .id(0x3a00007))
        XCTAssertEqual(WindowSelector.parse("60817415"), .id(60817415))
        XCTAssertEqual(WindowSelector.parse("Terminal"), .name("Terminal"))
        XCTAssertEqual(WindowSelector.parse("0xnothex"), .name("0xnothex"))
        XCTAssertEqual(WindowSelector.parse("12 monkeys"), .name("12 monkeys"))
        XCTAssertEqual(WindowSelector.parse(""), .name(""))
    }

    func testMissingDisplayIsNoDisplay() {
        XCTAssertThrowsError(try ScreenCapture(configuration: .init(display: ":4242"))) { error in
            XCTAssertEqual((error as? CaptureError)?.kind, .noDisplay)
            XCTAssertTrue("\(error)".contains(":4242"), "\(error)")
        }
    }

    func testUnsetDisplayIsNoDisplaySayingSo() {
        let saved = ProcessInfo.processInfo.environment["DISPLAY"]
        unsetenv("DISPLAY")
        defer { if let saved { setenv("DISPLAY", saved, 1) } }
        XCTAssertThrowsError(try ScreenCapture(configuration: .init())) { error in
            XCTAssertEqual((error as? CaptureError)?.kind, .noDisplay)
            XCTAssertTrue("\(error)".contains("DISPLAY is unset"), "\(error)")
        }
    }

    // MARK: Whole screen

    func testWholeScreenDeliversThirtyFramesASecondEvenlySpaced() throws {
        let x = try ScreenCaptureTestDisplay()
        let capture = try ScreenCapture(configuration: .init(display: x.name, target: .screen, framesPerSecond: 30))
        XCTAssertEqual(capture.width, x.width & ~1)
        XCTAssertEqual(capture.height, x.height & ~1)
        let frames = FrameCollector(keepFrames: false)
        capture.start(deliver: frames.add)
        Thread.sleep(forTimeInterval: 1.0)
        capture.stop()
        let got = frames.frames
        XCTAssertTrue((27...33).contains(got.count), "\(got.count) frames in 1 s at 30 fps")
        for frame in got {
            XCTAssertEqual(frame.width, capture.width)
            XCTAssertEqual(frame.height, capture.height)
            XCTAssertGreaterThanOrEqual(frame.bytesPerRow, frame.width * 4)
            XCTAssertEqual(frame.byteCount, frame.bytesPerRow * frame.height)
        }
        // Ticks are due on the 30 Hz schedule, exactly; a grab happens at its tick's due time, or
        // later when the thread woke late (a loaded machine), at most 3 periods later (beyond
        // that the tick is skipped and counted as late), never before it.
        let pairs = Array(zip(got, got.dropFirst()))
        let gaps = pairs.map { Double(Int64($1.captureTime) - Int64($0.captureTime)) / 1e6 }
        let ticks = pairs.map { $1.sequence - $0.sequence }
        XCTAssertTrue(ticks.allSatisfy { $0 >= 1 }, "sequence must increase: \(ticks)")
        XCTAssertTrue(gaps.allSatisfy { $0 > 0 }, "captureTime must increase: \(gaps)")
        for (a, b) in pairs {
            let due = Double(Int64(b.scheduledTime) - Int64(a.scheduledTime)) / 1e6
            XCTAssertEqual(due, Double(b.sequence - a.sequence) * 1000 / 30, accuracy: 0.01, "due times follow the schedule")
        }
        for f in got {
            let lateMs = Double(Int64(f.captureTime) - Int64(f.scheduledTime)) / 1e6
            XCTAssertTrue(lateMs >= 0 && lateMs < 4 * 1000 / 30, "grabbed \(lateMs) ms after its tick was due")
        }
        let totalTicks = Double(ticks.reduce(0, +))
        let statistics = capture.statistics
        XCTAssertEqual(statistics.captured, Int64(got.count))
        XCTAssertEqual(statistics.droppedPoolExhausted, 0)
        XCTAssertEqual(Int64(totalTicks) + 1, Int64(got.count) + statistics.lateTicks, "every tick is captured or counted late")
        print("ScreenCaptureTests: \(got.count) frames, shm=\(capture.usesSharedMemory), late=\(statistics.lateTicks), "
              + "gap min/max \(gaps.min() ?? 0)/\(gaps.max() ?? 0) ms")
    }

    func testFramesShowTheRootWindowColourAsBGR0() throws {
        let x = try ScreenCaptureTestDisplay()
        x.paintRoot(0xff0000)
        let frame = try grabOne(.init(display: x.name, target: .screen, showsCursor: false))
        XCTAssertEqual(frame.pixel(x: 0, y: 0), [0, 0, 255])
        XCTAssertEqual(frame.pixel(x: frame.width - 1, y: frame.height - 1), [0, 0, 255])
        x.paintRoot(0x00ff00)
        XCTAssertEqual(try grabOne(.init(display: x.name, showsCursor: false)).pixel(x: 10, y: 10), [0, 255, 0])
    }

    // MARK: Region

    func testRegionCaptureHasTheRegionSizeRoundedDownToEven() throws {
        let x = try ScreenCaptureTestDisplay()
        x.paintRoot(0x0000ff)
        let region = PixelRect(x: 100, y: 50, width: 641, height: 481)
        let capture = try ScreenCapture(configuration: .init(display: x.name, target: .region(region), showsCursor: false))
        XCTAssertEqual(capture.width, 640)
        XCTAssertEqual(capture.height, 480)
        let frame = try grabOne(capture)
        XCTAssertEqual(frame.width, 640)
        XCTAssertEqual(frame.height, 480)
        XCTAssertEqual(frame.pixel(x: 639, y: 479), [255, 0, 0])
    }

    func testRegionShowsExactlyTheContentAtItsOffset() throws {
        let x = try ScreenCaptureTestDisplay()
        x.paintRoot(0x000000)
        let window = x.makeWindow(title: "rk-region-probe", rgb: 0x00ff00, x: 300, y: 200, width: 100, height: 100)
        defer { x.destroy(window) }
        let frame = try grabOne(.init(display: x.name, target: .region(.init(x: 250, y: 150, width: 200, height: 200)),
                                      showsCursor: false))
        XCTAssertEqual(frame.pixel(x: 49, y: 49), [0, 0, 0])
        XCTAssertEqual(frame.pixel(x: 50, y: 50), [0, 255, 0])
        XCTAssertEqual(frame.pixel(x: 149, y: 149), [0, 255, 0])
        XCTAssertEqual(frame.pixel(x: 150, y: 150), [0, 0, 0])
    }

    func testRegionOutsideTheScreenIsBadRegion() throws {
        let x = try ScreenCaptureTestDisplay()
        let region = PixelRect(x: x.width - 10, y: 0, width: 20, height: 20)
        XCTAssertThrowsError(try ScreenCapture(configuration: .init(display: x.name, target: .region(region)))) { error in
            XCTAssertEqual((error as? CaptureError)?.kind, .badRegion)
            XCTAssertTrue("\(error)".contains("\(region)"), "\(error)")
        }
    }

    // MARK: Cursor

    func testCursorIsCompositedOnlyWhenAsked() throws {
        let x = try ScreenCaptureTestDisplay()
        x.paintRoot(0xff0000)
        x.warpPointer(x: 200, y: 200)
        let region = CaptureTarget.region(.init(x: 168, y: 168, width: 64, height: 64))
        let without = try grabOne(.init(display: x.name, target: region, showsCursor: false))
        XCTAssertEqual(without.countPixels(notEqualTo: [0, 0, 255]), 0)
        let with = try grabOne(.init(display: x.name, target: region, showsCursor: true))
        XCTAssertGreaterThan(with.countPixels(notEqualTo: [0, 0, 255]), 20, "the cursor should change some pixels")
    }

    // MARK: Windows

    func testUnknownWindowIdIsWindowNotFound() throws {
        let x = try ScreenCaptureTestDisplay()
        XCTAssertThrowsError(try ScreenCapture(configuration: .init(display: x.name, target: .window(.id(0x7ffffff0))))) { error in
            XCTAssertEqual((error as? CaptureError)?.kind, .windowNotFound)
            XCTAssertTrue("\(error)".contains("0x7ffffff0"), "\(error)")
        }
    }

    func testUnknownWindowTitleIsWindowNotFoundNamingIt() throws {
        let x = try ScreenCaptureTestDisplay()
        XCTAssertThrowsError(try ScreenCapture(configuration: .init(display: x.name, target: .window(.name("No Such Window 42"))))) { error in
            XCTAssertEqual((error as? CaptureError)?.kind, .windowNotFound)
            XCTAssertTrue("\(error)".contains("\"No Such Window 42\""), "\(error)")
        }
    }

    func testWindowCaptureFollowsTheWindowAndReportsItsDestruction() throws {
        let x = try ScreenCaptureTestDisplay()
        x.paintRoot(0xff0000)
        let window = x.makeWindow(title: "rk-capture-test ✓", legacyTitle: "rk-capture-test", rgb: 0x0000ff, x: 100, y: 100, width: 321, height: 240)
        let capture = try ScreenCapture(configuration: .init(display: x.name, target: .window(.name("rk-capture-test ✓")),
                                                             framesPerSecond: 60, showsCursor: false))
        XCTAssertEqual(capture.width, 320)
        XCTAssertEqual(capture.height, 240)
        let gone = expectation(description: "onWindowGone")
        let goneCount = Mutex(0)
        capture.onWindowGone = {
            goneCount.withLock { $0 += 1 }
            gone.fulfill()
        }
        let frames = FrameCollector(keepFrames: true, limit: 4)
        capture.start(deliver: frames.add)
        defer { capture.stop() }

        let first = try frames.next(after: 0)
        XCTAssertEqual(first.pixel(x: 0, y: 0), [255, 0, 0])
        XCTAssertEqual(first.pixel(x: 319, y: 239), [255, 0, 0])

        // Moved partly off the left edge: the visible part stays where it belongs, the rest is black.
        x.move(window, x: -100, y: 300)
        let moved = try frames.next(after: first.sequence, where: { $0.pixel(x: 50, y: 0) == [0, 0, 0] })
        XCTAssertEqual(moved.pixel(x: 99, y: 10), [0, 0, 0])
        XCTAssertEqual(moved.pixel(x: 100, y: 10), [255, 0, 0])
        XCTAssertEqual(moved.pixel(x: 319, y: 239), [255, 0, 0])

        // Shrunk: anchored top-left, padded with black; the size of frames never changes.
        x.move(window, x: 500, y: 500)
        x.resize(window, width: 100, height: 60)
        let shrunk = try frames.next(after: moved.sequence, where: { $0.pixel(x: 200, y: 100) == [0, 0, 0] })
        XCTAssertEqual(shrunk.width, 320)
        XCTAssertEqual(shrunk.pixel(x: 99, y: 59), [255, 0, 0])
        XCTAssertEqual(shrunk.pixel(x: 100, y: 59), [0, 0, 0])
        XCTAssertEqual(shrunk.pixel(x: 99, y: 60), [0, 0, 0])

        x.destroy(window)
        wait(for: [gone], timeout: 2)
        let countAtGone = frames.count
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(frames.count, countAtGone, "no frame after onWindowGone")
        XCTAssertEqual(goneCount.withLock { $0 }, 1)
    }

    func testWindowTitleMatchesWMNameToo() throws {
        let x = try ScreenCaptureTestDisplay()
        let window = x.makeWindow(title: "rk-net-name", legacyTitle: "rk-legacy-näme", rgb: 0x00ff00, x: 10, y: 10, width: 64, height: 32)
        defer { x.destroy(window) }
        XCTAssertEqual(try ScreenCapture(configuration: .init(display: x.name, target: .window(.name("rk-legacy-näme")))).width, 64)
        XCTAssertThrowsError(try ScreenCapture(configuration: .init(display: x.name, target: .window(.name("RK-NET-NAME")))),
                             "titles match case-sensitively")
    }

    func testWindowCaptureByIdFindsTheWindow() throws {
        let x = try ScreenCaptureTestDisplay()
        let window = x.makeWindow(title: "rk-by-id", rgb: 0x00ff00, x: 10, y: 10, width: 64, height: 32)
        defer { x.destroy(window) }
        let selector = WindowSelector.parse("0x" + String(window, radix: 16))
        XCTAssertEqual(selector, .id(window))
        let frame = try grabOne(.init(display: x.name, target: .window(selector), showsCursor: false))
        XCTAssertEqual(frame.width, 64)
        XCTAssertEqual(frame.height, 32)
        XCTAssertEqual(frame.pixel(x: 63, y: 31), [0, 255, 0])
    }

    /// A window hidden and shown 40 times at random moments, captured at 120 fps: with
    /// `skipsHiddenWindow` (a recording that pauses while its window is hidden) no frame shows
    /// anything but the window, neither the black of a hidden window nor the root under it,
    /// wherever the hiding falls between the tick's look-up and its grab; without it the hidden
    /// spans are black frames. Then the window's frames come back each time it is shown.
    func testAHiddenWindowDeliversNothingWhenAskedAndBlackOtherwise() throws {
        let x = try ScreenCaptureTestDisplay()
        x.paintRoot(0xff0000)
        let window = x.makeWindow(title: "rk-hide-test", rgb: 0x00ff00, x: 40, y: 40, width: 64, height: 48)
        defer { x.destroy(window) }
        for skips in [true, false] {
            var configuration = ScreenCaptureConfiguration(display: x.name, target: .window(.id(window)), framesPerSecond: 120, showsCursor: false)
            configuration.skipsHiddenWindow = skips
            let capture = try ScreenCapture(configuration: configuration)
            let tally = Mutex((window: 0, black: 0, other: [[UInt8]]()))
            capture.start { frame in
                let centre = frame.pixel(x: 32, y: 24)
                tally.withLock {
                    switch centre {
                    case [0, 255, 0]: $0.window += 1
                    case [0, 0, 0]: $0.black += 1
                    default: $0.other.append(centre)
                    }
                }
            }
            defer { capture.stop() }
            var generator = SystemRandomNumberGenerator()
            var missedShowings = 0
            for _ in 0..<40 {
                x.unmap(window)
                usleep(UInt32.random(in: 2_000...30_000, using: &generator))
                let before = tally.withLock { $0.window }
                x.map(window)
                usleep(UInt32.random(in: 0...20_000, using: &generator))
                // The window's frames come back once it is shown (within 3 s on a loaded machine).
                let deadline = Date().addingTimeInterval(3)
                while tally.withLock({ $0.window }) == before, Date() < deadline { usleep(2_000) }
                if tally.withLock({ $0.window }) == before { missedShowings += 1 }
            }
            capture.stop()
            let (shown, black, other) = tally.withLock { ($0.window, $0.black, $0.other) }
            print("ScreenCaptureTests (skipsHiddenWindow \(skips)): \(shown) frames of the window, \(black) black, \(other.count) other")
            XCTAssertEqual(missedShowings, 0, "skips \(skips): the window's frames come back every time it is shown")
            if skips {
                XCTAssertEqual(black, 0, "a hidden window delivers nothing when asked")
                XCTAssertEqual(other, [], "nor the root under the window, however the hiding falls")
            } else {
                // Black while hidden (and, rarely, the root when the hiding falls between look-up and grab).
                XCTAssertGreaterThan(black, 0, "a hidden window records black otherwise")
            }
        }
    }

    // MARK: Pool, stop, fallback

    func testHeldFramesExhaustThePoolAndCaptureDropsInsteadOfWaiting() throws {
        let x = try ScreenCaptureTestDisplay()
        let capture = try ScreenCapture(configuration: .init(display: x.name, target: .region(.init(x: 0, y: 0, width: 64, height: 64)),
                                                             framesPerSecond: 100))
        let frames = FrameCollector(keepFrames: true)
        capture.start(deliver: frames.add)
        // The picture must change: a still screen repeats one buffer and never needs another.
        let end = Date().addingTimeInterval(0.5)
        var colour: UInt = 0x102030
        while Date() < end {
            x.paintRoot(colour)
            colour ^= 0x0f0f0f
            Thread.sleep(forTimeInterval: 0.004)
        }
        let held = frames.count
        let dropped = capture.statistics.droppedPoolExhausted
        // (A tick without damage repeats a held buffer: count buffers, not frames.)
        XCTAssertEqual(frames.distinctBuffers, 12, "the pool has 12 buffers (and one scratch buffer for damaged rectangles)")
        XCTAssertGreaterThan(dropped, 20)
        frames.removeAll()  // consumers let go: buffers return to the pool
        Thread.sleep(forTimeInterval: 0.2)
        capture.stop()
        XCTAssertGreaterThan(capture.statistics.captured, Int64(held))
    }

    func testStopIsIdempotentAndNothingIsDeliveredAfterIt() throws {
        let x = try ScreenCaptureTestDisplay()
        let capture = try ScreenCapture(configuration: .init(display: x.name, framesPerSecond: 60))
        let frames = FrameCollector(keepFrames: false)
        capture.start(deliver: frames.add)
        Thread.sleep(forTimeInterval: 0.2)
        capture.stop()
        let count = frames.count
        capture.stop()
        capture.start(deliver: frames.add)  // no restart after stop
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(frames.count, count)
        XCTAssertGreaterThan(count, 5)

        let unused = try ScreenCapture(configuration: .init(display: x.name))
        unused.stop()  // never started: closes the display
    }

    func testStopFromInsideDeliverDoesNotDeadlock() throws {
        let x = try ScreenCaptureTestDisplay()
        let capture = try ScreenCapture(configuration: .init(display: x.name, framesPerSecond: 60))
        let frames = FrameCollector(keepFrames: false)
        let stopped = expectation(description: "stopped from deliver")
        capture.start { [capture] frame in
            frames.add(frame)
            if frames.count == 3 {
                capture.stop()
                stopped.fulfill()
            }
        }
        wait(for: [stopped], timeout: 2)
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(frames.count, 3)
    }

    /// `RK_TEST_DISPLAY_NOSHM`: a display without MIT-SHM, e.g. `Xvfb :67 -extension MIT-SHM`.
    func testFallsBackToXGetImageWithoutMITSHM() throws {
        guard let name = ProcessInfo.processInfo.environment["RK_TEST_DISPLAY_NOSHM"] else {
            throw XCTSkip("set RK_TEST_DISPLAY_NOSHM to a display started with -extension MIT-SHM")
        }
        let capture = try ScreenCapture(configuration: .init(display: name, target: .region(.init(x: 10, y: 10, width: 100, height: 50))))
        XCTAssertFalse(capture.usesSharedMemory)
        let frame = try grabOne(capture)
        XCTAssertEqual(frame.width, 100)
        XCTAssertEqual(frame.bytesPerRow, 400)
    }

    // MARK: Helpers

    private func grabOne(_ configuration: ScreenCaptureConfiguration) throws -> CapturedFrame {
        try grabOne(ScreenCapture(configuration: configuration))
    }

    private func grabOne(_ capture: ScreenCapture) throws -> CapturedFrame {
        let frames = FrameCollector(keepFrames: true, limit: 1)
        capture.start(deliver: frames.add)
        defer { capture.stop() }
        return try frames.next(after: -1)
    }
}

/// What a test remembers of every delivered frame, without holding its pixels.
private struct FrameInfo: Sendable {
    let sequence: Int64
    let captureTime: UInt64
    let scheduledTime: UInt64
    let width: Int
    let height: Int
    let bytesPerRow: Int
    let byteCount: Int
}

/// No frame arrived in time.
private struct NoFrameInTime: Error {}

/// Collects delivered frames for a test (thread-safe).
private final class FrameCollector: Sendable {
    private let infos = Mutex<[FrameInfo]>([])
    private let kept = Mutex<[CapturedFrame]>([])
    private let keepFrames: Bool
    private let limit: Int

    /// Records every frame; with `keepFrames` also holds on to the newest `limit` frames (and so
    /// to their pool buffers).
    init(keepFrames: Bool, limit: Int = .max) {
        self.keepFrames = keepFrames
        self.limit = limit
    }

    func add(_ frame: CapturedFrame) {
        infos.withLock {
            $0.append(FrameInfo(sequence: frame.sequence, captureTime: frame.captureTime, scheduledTime: frame.scheduledTime, width: frame.width,
                                height: frame.height, bytesPerRow: frame.bytesPerRow, byteCount: frame.pixels.count))
        }
        guard keepFrames else { return }
        kept.withLock {
            $0.append(frame)
            if $0.count > limit { $0.removeFirst() }
        }
    }

    var frames: [FrameInfo] { infos.withLock { $0 } }
    var count: Int { infos.withLock { $0.count } }
    /// Distinct pool buffers among the kept frames (a repeated picture shares its buffer).
    var distinctBuffers: Int { kept.withLock { Set($0.compactMap { $0.pixels.bytes.baseAddress }).count } }
    func removeAll() { kept.withLock { $0.removeAll() } }

    /// Waits up to 3 s for a kept frame with a sequence above `sequence` that satisfies `condition`.
    func next(after sequence: Int64, where condition: (CapturedFrame) -> Bool = { _ in true }) throws -> CapturedFrame {
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline {
            if let frame = kept.withLock({ $0.last(where: { $0.sequence > sequence && condition($0) }) }) { return frame }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw NoFrameInTime()
    }
}

extension CapturedFrame {
    /// The B, G, R bytes of pixel (`x`, `y`).
    fileprivate func pixel(x: Int, y: Int) -> [UInt8] {
        let offset = y * bytesPerRow + x * 4
        return [pixels.bytes[offset], pixels.bytes[offset + 1], pixels.bytes[offset + 2]]
    }

    /// How many pixels differ from `bgr`.
    fileprivate func countPixels(notEqualTo bgr: [UInt8]) -> Int {
        var count = 0
        for y in 0..<height {
            for x in 0..<width where pixel(x: x, y: y) != bgr { count += 1 }
        }
        return count
    }
}
