import CX11
import RecordKit
import RecordKitSupport

/// Everything one screen capture holds on the X side, and the work of one tick.
///
/// Created by ``ScreenCapture/init(configuration:)`` on the caller's thread; from
/// ``ScreenCapture/start(deliver:)`` on it is used only by the capture thread, which closes it
/// when it ends. It is never used by two threads at once, hence `@unchecked Sendable`.
final class CaptureSession: @unchecked Sendable {
    /// Buffers in the frame pool: enough for an encoder and a few slow handlers to hold frames,
    /// plus one scratch buffer for damaged-rectangle grabs (never handed out).
    static let poolSlotCount = 13

    /// What one tick produced.
    enum TickOutcome {
        /// A frame to deliver.
        case frame(CapturedFrame)
        /// Nothing in the captured area changed: nothing was grabbed (see ``repeatFrame(sequence:scheduledTime:)``).
        case unchanged
        /// Every pool buffer is held by consumers; nothing was grabbed.
        case poolExhausted
        /// Nothing to deliver: the server refused this grab (e.g. the screen is being resized),
        /// or the recorded window is hidden (``ScreenCaptureConfiguration/skipsHiddenWindow``).
        case skipped
        /// The captured window was destroyed.
        case windowGone
        /// Capture cannot go on.
        case failed(CaptureError)
    }

    /// Output width in pixels (even).
    let width: Int
    /// Output height in pixels (even).
    let height: Int
    /// The captured window's id, when capturing a window.
    let windowID: UInt?
    private let connection: XDisplayConnection
    private let tracker: TargetTracker
    let grabber: FrameGrabber
    let cursor: CursorOverlay?
    private var rootWidth: Int
    private var rootHeight: Int
    private var isClosed = false
    /// See ``ScreenCaptureConfiguration/skipsHiddenWindow``.
    private let skipsHiddenWindow: Bool
    /// Damage-driven state (nil without the DAMAGE extension: every tick grabs everything).
    var incremental: IncrementalState?

    /// Whether grabs go through MIT-SHM.
    var usesSharedMemory: Bool { grabber.usesSharedMemory }

    /// Opens the display, resolves the target and sets up grabbing (see ``ScreenCapture``).
    init(configuration: ScreenCaptureConfiguration) throws(CaptureError) {
        let connection = try XDisplayConnection(name: configuration.display)
        guard let root = connection.rootSize() else {
            throw CaptureError(.xError, "could not read the size of the screen of display \(connection.name)")
        }
        let target: PixelRect
        let tracker: TargetTracker
        let what: String
        var windowID: UInt?
        switch configuration.target {
        case .screen:
            target = PixelRect(x: 0, y: 0, width: root.width, height: root.height)
            tracker = TargetTracker(connection: connection, fixed: target)
            what = "the screen"
        case .region(let region):
            guard region.width > 0, region.height > 0, region.x >= 0, region.y >= 0,
                  region.x + region.width <= root.width, region.y + region.height <= root.height else {
                throw CaptureError(.badRegion,
                    "region \(region) does not lie inside the screen of display \(connection.name), which is \(root.width)x\(root.height)+0+0")
            }
            target = region
            tracker = TargetTracker(connection: connection, fixed: region)
            what = "region \(region)"
        case .monitor(let selector):
            let monitor = try MonitorList.find(selector, connection)
            target = PixelRect(x: 0, y: 0, width: min(monitor.width, root.width), height: min(monitor.height, root.height))
            tracker = TargetTracker(connection: connection, monitor: selector, at: monitor.rect)
            tracker.monitorLookupInterval = max(configuration.framesPerSecond, 1)
            what = "\(selector) '\(monitor.name)' (\(monitor.rect))"
        case .window(let selector):
            let window = try WindowFinder(connection: connection).find(selector)
            var attributes = XWindowAttributes()
            let (status, error) = connection.checked { XGetWindowAttributes(connection.display, window, &attributes) }
            guard status != 0, error == nil else {
                throw CaptureError(.windowNotFound,
                    "window 0x\(String(window, radix: 16)) on display \(connection.name) disappeared while capture was being set up")
            }
            // The output never exceeds the screen: a larger window is cropped to the screen size.
            target = PixelRect(x: 0, y: 0, width: min(Int(attributes.width), root.width),
                                 height: min(Int(attributes.height), root.height))
            windowID = UInt(window)
            tracker = TargetTracker(connection: connection, window: window)
            what = "window 0x\(String(window, radix: 16)) (\(attributes.width)x\(attributes.height))"
        }
        let width = target.width & ~1
        let height = target.height & ~1
        guard width >= 2, height >= 2 else {
            throw CaptureError(.badRegion, "\(what) is too small to capture: frames need at least 2x2 pixels")
        }
        self.grabber = try FrameGrabber.make(connection: connection, width: width, height: height,
                                             slotCount: CaptureSession.poolSlotCount)
        self.connection = connection
        self.tracker = tracker
        self.width = width
        self.height = height
        self.windowID = windowID
        self.skipsHiddenWindow = configuration.skipsHiddenWindow && windowID != nil
        self.rootWidth = root.width
        self.rootHeight = root.height
        self.cursor = configuration.showsCursor ? CursorOverlay(connection: connection) : nil
        // Root ConfigureNotify events tell about screen size changes (RandR) without a round trip.
        XSelectInput(connection.display, connection.root, StructureNotifyMask)
        if let damage = DamageTracker(connection: connection), let scratch = grabber.pool.acquire() {
            self.incremental = IncrementalState(damage: damage, scratchSlot: scratch, slotCount: grabber.pool.slotCount,
                                                width: width, height: height)
        }
    }

    /// Locates the target and brings a pool buffer up to date: nothing when nothing changed
    /// (``TickOutcome/unchanged``), the damaged rectangles when a little changed, everything when
    /// the target moved or damage is unknown; draws the cursor. Counts grabs in `counters`.
    func tick(sequence: Int64, scheduledTime: UInt64, counters: CaptureCounters) -> TickOutcome {
        guard !isClosed else { return .failed(CaptureError(.xError, "capture session is closed")) }
        readEvents()
        let position = tracker.current()
        if let lost = connectionLostError() { return .failed(lost) }
        let outcome: GrabPlan.Outcome
        let originX: Int, originY: Int
        switch position {
        case .gone:
            return .windowGone
        case .hidden:
            if skipsHiddenWindow { return .skipped }
            (outcome, originX, originY) = (.nothingVisible, 0, 0)
        case .visible(let rect):
            outcome = GrabPlan.make(target: rect, outputWidth: width, outputHeight: height,
                                    rootWidth: rootWidth, rootHeight: rootHeight)
            (originX, originY) = (rect.x, rect.y)
        }
        if case .screenTooSmall = outcome {
            return .failed(CaptureError(.xError,
                "the screen of display \(connection.name) shrank to \(rootWidth)x\(rootHeight), smaller than the \(width)x\(height) frames being captured"))
        }
        if let outcome = incrementalTick(outcome, originX: originX, originY: originY, sequence: sequence,
                                         scheduledTime: scheduledTime, counters: counters) {
            return checkedStillViewable(outcome)
        }
        guard let slot = grabber.pool.acquire() else { return .poolExhausted }
        let pixels = grabber.pool.address(ofSlot: slot)
        let bytesPerRow = grabber.bytesPerRow
        let captureTime: UInt64
        switch outcome {
        case .grab(let plan):
            let before = MonotonicClock.nanoseconds()
            let ok = grabber.grab(slot: slot, x: plan.grabX, y: plan.grabY)
            let after = MonotonicClock.nanoseconds()
            counters.update { $0.grabs += 1; $0.grabbedPixels += Int64(width * height) }
            guard ok else {
                incremental?.invalidate()
                grabber.pool.giveBack(slot)
                if let lost = connectionLostError() { return .failed(lost) }
                if let root = connection.rootSize() { (rootWidth, rootHeight) = root }
                return .skipped
            }
            captureTime = before + (after - before) / 2
            plan.arrange(pixels: pixels, bytesPerRow: bytesPerRow, width: width, height: height)
            cursor?.draw(into: pixels, bytesPerRow: bytesPerRow, originX: originX, originY: originY,
                         clip: plan.contentRect)
        case .nothingVisible, .screenTooSmall:
            captureTime = MonotonicClock.nanoseconds()
            GrabPlan.fillBlack(pixels: pixels, bytesPerRow: bytesPerRow, width: width, height: height,
                               except: PixelRect(x: 0, y: 0, width: 0, height: 0))
        }
        let buffer = grabber.pool.buffer(slot: slot, byteCount: bytesPerRow * height)
        let frame = CapturedFrame(pixels: buffer, bytesPerRow: bytesPerRow, width: width, height: height,
                                  captureTime: captureTime, sequence: sequence, scheduledTime: scheduledTime,
                                  previousSequence: incremental?.lastSequence)
        incremental?.tookFullFrame(frame, slot: slot, outcome: outcome, originX: originX, originY: originY,
                                   cursor: cursor?.state)
        return checkedStillViewable(.frame(frame))
    }

    /// With ``ScreenCaptureConfiguration/skipsHiddenWindow``: a frame grabbed from a window that
    /// is no longer viewable (it was hidden between the look-up and the grab, so the grab may
    /// hold what lay under it) is not delivered, and the next grab starts afresh.
    private func checkedStillViewable(_ outcome: TickOutcome) -> TickOutcome {
        guard skipsHiddenWindow, case .frame = outcome, !tracker.isStillViewable() else { return outcome }
        incremental?.invalidate()
        return .skipped
    }

    /// Applies queued root-window size changes.
    private func readEvents() {
        let display = connection.display
        while XPending(display) > 0 {
            var event = XEvent()
            XNextEvent(display, &event)
            if incremental?.damage.noteEvent(&event) == true { continue }
            if event.type == ConfigureNotify, event.xconfigure.window == connection.root {
                rootWidth = Int(event.xconfigure.width)
                rootHeight = Int(event.xconfigure.height)
            }
        }
    }

    private func connectionLostError() -> CaptureError? {
        guard connection.isConnectionLost else { return nil }
        return CaptureError(.xError, connection.lostReason.map { "lost X display \(connection.name): \($0)" }
            ?? "lost the connection to X display \(connection.name): the X server exited or dropped this client")
    }

    /// Detaches shared memory and closes the display. Idempotent. Frames already delivered stay valid.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        incremental?.damage.close()
        incremental = nil
        grabber.close()
        connection.close()
    }

    deinit { close() }
}
