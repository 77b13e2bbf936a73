import Glibc
import RecordKit
import Synchronization

/// A screen source with a camera's picture composited into one corner (picture-in-picture),
/// before the shared encode: every consumer of the recording gets the same picture. It is
/// itself a ``VideoSource`` and keeps that contract. Without a placement (`--camera-track`) the
/// screen's frames pass unchanged and the camera goes to its own track instead
/// (``CameraTrackFeed``, ``startTrack(deliver:)``).
///
/// **Threads.** The camera's pictures are scaled to the corner's size on the camera's own thread
/// as they arrive (``CameraPictureStore``); each screen frame is composited on the screen
/// source's capture thread: the frame copied into a buffer of this source's pool and the
/// corner's rows written over it. Nothing runs on Swift's cooperative pool.
///
/// **Timeline.** Camera pictures and screen frames are both stamped on `CLOCK_MONOTONIC`; a screen
/// frame shows the newest camera picture captured no later than itself (see
/// ``CameraPictureStore/picture(for:)``), and ``CameraSwitch`` decides by the frame's capture
/// time whether the corner is drawn, so `camera off` takes effect at its instant.
///
/// **Frame rate.** The screen source must run at constant frame rate (a frame every tick) so
/// that the camera moves on a still screen; this source then applies the recording's own
/// ``FrameRateMode``: a tick with neither a new screen picture nor a new camera picture nor a
/// switch is a repeat (every tick when constant, every half second when variable). Changed
/// frames say where they changed: the screen's rectangles plus the corner's.
package final class CameraOverlaySource: VideoSource, @unchecked Sendable {
    package var width: Int { screen.width }
    package var height: Int { screen.height }
    package var windowID: UInt? { screen.windowID }
    /// Where the camera is drawn, in frame pixels (the camera's own size at 0,0 for a track).
    package let rect: PixelRect
    /// The camera track's frame size, or nil when the camera is drawn in a corner.
    package var trackSize: (width: Int, height: Int)? { track.map { ($0.width, $0.height) } }
    /// The live on/off switch.
    package let cameraSwitch: CameraSwitch
    /// The camera's name.
    package var cameraName: String { camera.name }

    private let screen: any VideoSource
    private let camera: any CameraSource
    private let store: CameraPictureStore
    private let pool: FramePool
    private let mode: FrameRateMode
    private let dropped = Atomic<Int64>(0)
    /// State of the capture thread (one frame at a time).
    private var last: (buffer: MediaBuffer, sequence: Int64, deliveredNs: UInt64, cameraSerial: Int)?
    private var lastScreenBuffer: MediaBuffer?
    private var lostChange = false
    /// The camera track (nil: the corner), and where its frames go (set before ``start(deliver:)``).
    private let track: CameraTrackFeed?
    private var trackSink: (@Sendable (CapturedFrame) -> Void)?

    /// Composites `camera` into `screen`'s frames at `placement` (nil: the camera as its own
    /// track); `mode` is the recording's frame rate mode (the screen source itself must run at
    /// constant frame rate).
    /// - Throws: ``CaptureError`` `.cameraUnavailable` when no memory for the frame pool.
    package init(screen: any VideoSource, camera: any CameraSource, placement: CameraPlacement?, mode: FrameRateMode,
                 enabled: Bool = true) throws(CaptureError) {
        let rect = placement?.rect(screenWidth: screen.width, screenHeight: screen.height,
                                   cameraWidth: camera.width, cameraHeight: camera.height)
            ?? PixelRect(x: 0, y: 0, width: camera.width, height: camera.height)
        if placement == nil {
            guard let feed = CameraTrackFeed(width: camera.width, height: camera.height, mode: mode) else {
                throw CaptureError(.cameraUnavailable, "no memory for the camera track's frame pool")
            }
            track = feed
        } else {
            track = nil
        }
        let bytes = screen.width * 4 * screen.height
        // Shared memory when the system gives it (extensions in other processes read frames there).
        guard let pool = FramePool(slotCount: 8, slotByteCount: bytes, shared: true) ?? FramePool(slotCount: 8, slotByteCount: bytes, shared: false) else {
            throw CaptureError(.cameraUnavailable, "no memory for the camera's frame pool")
        }
        self.screen = screen
        self.camera = camera
        self.rect = rect
        self.pool = pool
        self.mode = mode
        self.store = CameraPictureStore(width: rect.width, height: rect.height)
        self.cameraSwitch = CameraSwitch(enabled: enabled)
    }

    /// Where the camera track's frames go (each on the capture thread, right after the screen
    /// frame of its tick); call before ``start(deliver:)``. Nothing when the camera is in a corner.
    package func startTrack(deliver: @escaping @Sendable (CapturedFrame) -> Void) {
        trackSink = deliver
    }

    package var statistics: ScreenCaptureStatistics {
        var s = screen.statistics
        s.droppedPoolExhausted += dropped.load(ordering: .relaxed)
        return s
    }

    package var onWindowGone: (@Sendable () -> Void)? {
        get { screen.onWindowGone }
        set { screen.onWindowGone = newValue }
    }

    package var onFailure: (@Sendable (CaptureError) -> Void)? {
        get { screen.onFailure }
        set { screen.onFailure = newValue }
    }

    /// Why the camera stopped delivering, or nil while it runs (its corner is then left out).
    package var cameraEndReason: String? { camera.endReason }
    /// What the camera sends and at what size ("MJPEG 640x480"); empty when not known.
    package var cameraFormat: String { camera.format }
    /// Camera pictures skipped (a JPEG that does not decode), and why the last one was.
    package var cameraSkipped: (count: Int64, lastReason: String?) { camera.skipped }

    package func start(deliver: @escaping @Sendable (CapturedFrame) -> Void) {
        let store = self.store
        camera.start { pixels, bytesPerRow, w, h, redFirst, captureNs in
            store.receive(pixels, bytesPerRow: bytesPerRow, width: w, height: h, redFirst: redFirst, captureNs: captureNs)
        }
        if let track {
            screen.start { [self] frame in passWithTrack(frame, track, deliver) }
        } else {
            screen.start { [self] frame in composite(frame, deliver) }
        }
    }

    package func stop() {
        screen.stop()
        camera.stop()
    }

    /// The capture thread, camera track: the screen frame as it is (an unchanged one at
    /// variable frame rate only every half second), then the track's frame of the same tick.
    private func passWithTrack(_ frame: CapturedFrame, _ track: CameraTrackFeed, _ deliver: (CapturedFrame) -> Void) {
        let screenChanged = frame.isChanged || lastScreenBuffer !== frame.pixels
        lastScreenBuffer = frame.pixels
        if screenChanged || mode == .constant || last.map({ frame.captureTime >= $0.deliveredNs + 500_000_000 }) ?? true {
            last = (frame.pixels, frame.sequence, frame.captureTime, -1)
            deliver(frame)
        }
        let picture = cameraSwitch.isShown(at: frame.captureTime) && camera.endReason == nil ? store.picture(for: frame.captureTime) : nil
        if let cameraFrame = track.frame(for: frame, picture: picture) { trackSink?(cameraFrame) }
    }

    /// The capture thread: one screen frame in, at most one frame out.
    private func composite(_ frame: CapturedFrame, _ deliver: (CapturedFrame) -> Void) {
        let picture = cameraSwitch.isShown(at: frame.captureTime) && camera.endReason == nil ? store.picture(for: frame.captureTime) : nil
        let cameraSerial = picture?.serial ?? -1
        let screenChanged = frame.isChanged || lastScreenBuffer !== frame.pixels
        lastScreenBuffer = frame.pixels
        if let previous = last, !screenChanged, cameraSerial == previous.cameraSerial {
            // Nothing new: a repeat, as the recording's frame rate mode asks.
            if mode == .variable && frame.captureTime < previous.deliveredNs + 500_000_000 { return }
            last = (previous.buffer, frame.sequence, frame.captureTime, cameraSerial)
            deliver(CapturedFrame(pixels: previous.buffer, bytesPerRow: width * 4, width: width, height: height,
                                  captureTime: frame.captureTime, sequence: frame.sequence, scheduledTime: frame.scheduledTime,
                                  isChanged: false, previousSequence: previous.sequence))
            return
        }
        guard let slot = pool.acquire() else {
            dropped.add(1, ordering: .relaxed)
            lostChange = true
            return
        }
        let rowBytes = width * 4
        let out = pool.address(ofSlot: slot)
        guard let source = frame.pixels.bytes.baseAddress, frame.pixels.count >= frame.bytesPerRow * (height - 1) + rowBytes else {
            pool.giveBack(slot)
            return
        }
        if frame.bytesPerRow == rowBytes {
            memcpy(out, source, rowBytes * height)
        } else {
            for row in 0..<height { memcpy(out + row * rowBytes, source + row * frame.bytesPerRow, rowBytes) }
        }
        if let picture {
            picture.pixels.withUnsafeBytes { camera in
                let cameraRow = picture.width * 4
                for row in 0..<picture.height {
                    memcpy(out + (rect.y + row) * rowBytes + rect.x * 4, camera.baseAddress! + row * cameraRow, cameraRow)
                }
            }
        }
        var dirty: [PixelRect]?
        if let previous = last, !lostChange {
            dirty = screenChanged ? frame.dirtyRects : []
            if cameraSerial != previous.cameraSerial { dirty?.append(rect) }
        }
        lostChange = false
        let buffer = pool.buffer(slot: slot, byteCount: rowBytes * height)
        let previousSequence = last?.sequence
        last = (buffer, frame.sequence, frame.captureTime, cameraSerial)
        deliver(CapturedFrame(pixels: buffer, bytesPerRow: rowBytes, width: width, height: height,
                              captureTime: frame.captureTime, sequence: frame.sequence, scheduledTime: frame.scheduledTime,
                              isChanged: true, dirtyRects: dirty, previousSequence: previousSequence))
    }

    deinit { stop() }
}
