import Glibc
import RecordKit

/// The camera's own video track (`--camera-track`): one camera frame per screen frame, at the
/// camera's size, with the screen frame's capture time, tick and sequence, so the track lies on
/// the recording's one clock and frame grid (its duration is the screen's, A/V sync is the
/// screen's).
///
/// **What it carries.** The newest camera picture captured no later than the screen frame
/// (``CameraPictureStore/picture(for:)``). While the camera is switched off (``CameraSwitch``),
/// before its first picture and after it was lost: a black picture, at the same times: the
/// track never has a gap or a timestamp jump, and a player shows black, as a covered lens.
/// A picture already delivered is delivered again as an unchanged frame (the same buffer), so
/// the encoder does not convert it twice; at variable frame rate an unchanged frame is sent
/// only every half second, like the screen's.
///
/// **Threads.** Called on the screen source's capture thread only (``CameraOverlaySource``).
final class CameraTrackFeed: @unchecked Sendable {  // one thread at a time: the capture thread
    /// The camera's size: every frame of the track.
    let width: Int
    let height: Int
    private let pool: FramePool
    private let mode: FrameRateMode
    /// The black picture, made once (its slot is held for the recording).
    private let black: MediaBuffer
    /// The last frame delivered: its buffer, the camera picture's serial (-1: black), its sequence and time.
    private var last: (buffer: MediaBuffer, serial: Int, sequence: Int64, deliveredNs: UInt64)?
    private(set) var dropped: Int64 = 0

    /// A feed of `width`x`height` BGR0 frames; nil when no memory for its pool.
    init?(width: Int, height: Int, mode: FrameRateMode) {
        let bytes = width * 4 * height
        // Shared memory when the system gives it (extensions in other processes read raw frames there).
        guard let pool = FramePool(slotCount: 10, slotByteCount: bytes, shared: true) ?? FramePool(slotCount: 10, slotByteCount: bytes, shared: false),
              let slot = pool.acquire() else { return nil }
        memset(pool.address(ofSlot: slot), 0, bytes)
        self.black = pool.buffer(slot: slot, byteCount: bytes)
        self.width = width
        self.height = height
        self.pool = pool
        self.mode = mode
    }

    /// The track's frame for screen frame `screen`: `picture` (already at the camera's size),
    /// or black when nil; nil when nothing is to be sent (an unchanged frame at variable frame
    /// rate within half a second of the last, or no free buffer).
    func frame(for screen: CapturedFrame, picture: ScaledCameraPicture?) -> CapturedFrame? {
        let serial = picture?.serial ?? -1
        let rowBytes = width * 4
        if let previous = last, previous.serial == serial {
            if mode == .variable && screen.captureTime < previous.deliveredNs + 500_000_000 { return nil }
            last = (previous.buffer, serial, screen.sequence, screen.captureTime)
            return CapturedFrame(pixels: previous.buffer, bytesPerRow: rowBytes, width: width, height: height,
                                 captureTime: screen.captureTime, sequence: screen.sequence, scheduledTime: screen.scheduledTime,
                                 isChanged: false, previousSequence: previous.sequence)
        }
        let buffer: MediaBuffer
        if let picture, picture.width == width, picture.height == height {
            guard let slot = pool.acquire() else {
                dropped += 1
                return nil
            }
            _ = picture.pixels.withUnsafeBytes { memcpy(pool.address(ofSlot: slot), $0.baseAddress!, rowBytes * height) }
            buffer = pool.buffer(slot: slot, byteCount: rowBytes * height)
        } else {
            buffer = black
        }
        let previousSequence = last?.sequence
        last = (buffer, serial, screen.sequence, screen.captureTime)
        return CapturedFrame(pixels: buffer, bytesPerRow: rowBytes, width: width, height: height,
                             captureTime: screen.captureTime, sequence: screen.sequence, scheduledTime: screen.scheduledTime,
                             isChanged: true, previousSequence: previousSequence)
    }
}
