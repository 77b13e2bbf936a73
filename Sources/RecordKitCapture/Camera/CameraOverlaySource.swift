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
/// source's capture thread. Nothing runs on Swift's cooperative pool.
///
/// **Copies.** A changed screen frame of a source that lends writable frames (X11, the portal:
/// ``VideoSource/lendsWritableFrames``) gets the corner drawn into it in place: no copy of the
/// screen, and the screen's own pixels under the corner are kept aside (``CornerUnderlay``) for
/// when the corner must show them. Otherwise (a repeated screen picture under a new camera
/// picture, or a source whose frames are read-only) the frame is made in a buffer of this
/// source's pool, copying from the screen only what that buffer misses (``OverlayFramePool``),
/// then the corner.
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
    private let frames: OverlayFramePool
    /// Whether changed screen frames are drawn into in place (the screen source lends them).
    private let drawsInPlace: Bool
    /// The screen's own pixels under the corner (capture thread), when drawing in place.
    private var underlay: CornerUnderlay
    private let mode: FrameRateMode
    private let dropped = Atomic<Int64>(0)
    /// State of the capture thread (one frame at a time).
    private var last: (buffer: MediaBuffer, bytesPerRow: Int, sequence: Int64, deliveredNs: UInt64, cameraSerial: Int)?
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
        guard let frames = OverlayFramePool(width: screen.width, height: screen.height) else {
            throw CaptureError(.cameraUnavailable, "no memory for the camera's frame pool")
        }
        self.screen = screen
        self.camera = camera
        self.rect = rect
        self.frames = frames
        self.drawsInPlace = screen.lendsWritableFrames
        self.underlay = CornerUnderlay(rect: placement == nil ? PixelRect(x: 0, y: 0, width: 0, height: 0) : rect)
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
            last = (frame.pixels, frame.bytesPerRow, frame.sequence, frame.captureTime, -1)
            deliver(frame)
        }
        let picture = cameraSwitch.isShown(at: frame.captureTime) && camera.endReason == nil ? store.picture(for: frame.captureTime) : nil
        if let cameraFrame = track.frame(for: frame, picture: picture) { trackSink?(cameraFrame) }
    }

    /// The capture thread: one screen frame in, at most one frame out.
    private func composite(_ frame: CapturedFrame, _ deliver: (CapturedFrame) -> Void) {
        let picture = cameraSwitch.isShown(at: frame.captureTime) && camera.endReason == nil ? store.picture(for: frame.captureTime) : nil
        let cameraSerial = picture?.serial ?? -1
        let newBuffer = lastScreenBuffer !== frame.pixels
        let screenChanged = frame.isChanged || newBuffer
        lastScreenBuffer = frame.pixels
        if let previous = last, !screenChanged, cameraSerial == previous.cameraSerial {
            // Nothing new: a repeat, as the recording's frame rate mode asks.
            if mode == .variable && frame.captureTime < previous.deliveredNs + 500_000_000 { return }
            last = (previous.buffer, previous.bytesPerRow, frame.sequence, frame.captureTime, cameraSerial)
            deliver(CapturedFrame(pixels: previous.buffer, bytesPerRow: previous.bytesPerRow, width: width, height: height,
                                  captureTime: frame.captureTime, sequence: frame.sequence, scheduledTime: frame.scheduledTime,
                                  isChanged: false, previousSequence: previous.sequence))
            return
        }
        let rowBytes = width * 4
        guard let source = frame.pixels.bytes.baseAddress, frame.pixels.count >= frame.bytesPerRow * (height - 1) + rowBytes else {
            return
        }
        if drawsInPlace && frame.isChanged { underlay.refresh(from: frame) }
        let screenChanges = screenChanged ? frame.dirtyRects : []
        let output: MediaBuffer
        let bytesPerRow: Int
        let slot: Int?
        if drawsInPlace && frame.isChanged && newBuffer {
            // The source lends this buffer: the corner goes straight into it.
            drawCorner(picture, into: UnsafeMutableRawPointer(mutating: source), bytesPerRow: frame.bytesPerRow,
                       screen: source, screenBytesPerRow: frame.bytesPerRow)
            (output, bytesPerRow, slot) = (frame.pixels, frame.bytesPerRow, nil)
        } else {
            guard let free = frames.acquire(screenChanges: screenChanges) else {
                dropped.add(1, ordering: .relaxed)
                lostChange = true
                return
            }
            for part in free.copy {
                PixelCopy.rect(part, from: source, bytesPerRow: frame.bytesPerRow, to: free.pixels, bytesPerRow: rowBytes)
            }
            drawCorner(picture, into: free.pixels, bytesPerRow: rowBytes, screen: source, screenBytesPerRow: frame.bytesPerRow)
            (output, bytesPerRow, slot) = (frames.buffer(slot: free.slot), rowBytes, free.slot)
        }
        var dirty: [PixelRect]?
        if let previous = last, !lostChange {
            dirty = screenChanges
            if cameraSerial != previous.cameraSerial { dirty?.append(rect) }
        }
        lostChange = false
        frames.delivered(changes: dirty, slot: slot)
        let previousSequence = last?.sequence
        last = (output, bytesPerRow, frame.sequence, frame.captureTime, cameraSerial)
        deliver(CapturedFrame(pixels: output, bytesPerRow: bytesPerRow, width: width, height: height,
                              captureTime: frame.captureTime, sequence: frame.sequence, scheduledTime: frame.scheduledTime,
                              isChanged: true, dirtyRects: dirty, previousSequence: previousSequence))
    }

    /// Draws the corner into the frame at `pixels`: the camera's `picture`, or without one what
    /// the screen shows there (kept aside when drawing in place, else read from the screen
    /// frame at `screen`).
    private func drawCorner(_ picture: ScaledCameraPicture?, into pixels: UnsafeMutableRawPointer, bytesPerRow: Int,
                            screen: UnsafeRawPointer, screenBytesPerRow: Int) {
        if let picture {
            picture.pixels.withUnsafeBytes { camera in
                PixelCopy.block(width: picture.width, height: picture.height, from: camera.baseAddress!, bytesPerRow: picture.width * 4,
                                to: pixels + rect.y * bytesPerRow + rect.x * 4, bytesPerRow: bytesPerRow)
            }
        } else if drawsInPlace {
            underlay.draw(into: pixels, bytesPerRow: bytesPerRow)
        } else {
            PixelCopy.rect(rect, from: screen, bytesPerRow: screenBytesPerRow, to: pixels, bytesPerRow: bytesPerRow)
        }
    }

    deinit { stop() }
}
