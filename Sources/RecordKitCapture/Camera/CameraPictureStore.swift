import Synchronization

/// The newest few camera pictures, scaled to the corner's size, so that each screen frame can be
/// given the camera picture of its own moment. Pictures are scaled on the camera's thread as
/// they arrive (``receive(_:bytesPerRow:width:height:redFirst:captureNs:)``); the capture thread
/// picks one with ``picture(for:)``. Thread-safe (a lock around the list of immutable pictures).
final class CameraPictureStore: Sendable {
    /// The drawn size.
    let width: Int
    let height: Int
    /// How many pictures are kept: a third of a second at 30 fps.
    private static let depth = 10
    private let pictures = Mutex<[ScaledCameraPicture]>([])
    private let serial = Atomic<Int>(0)
    /// The camera thread's state (a lock nobody else takes): its scaler, kept from picture to
    /// picture, and the pixels of pictures nobody holds any more, written over by the next
    /// pictures: after its first pictures the camera's thread allocates nothing per picture
    /// (0.7 MB each at 480x360, which malloc would serve from fresh pages whenever it had just
    /// given its free memory back to the system).
    private let cameraThread = Mutex<(scaler: CameraPictureScaler?, spares: [[UInt32]])>((nil, []))
    /// How many such pixel buffers are kept for reuse.
    private static let spareCount = 2

    /// A store for pictures drawn at `width`x`height`.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The camera's thread: scales and keeps one picture.
    func receive(_ pixels: UnsafeRawPointer, bytesPerRow: Int, width sw: Int, height sh: Int, redFirst: Bool, captureNs: UInt64) {
        guard sw >= 1, sh >= 1 else { return }
        let n = serial.add(1, ordering: .relaxed).newValue
        cameraThread.withLock { state in
            let picture = ScaledCameraPicture.scaled(pixels, bytesPerRow: bytesPerRow, width: sw, height: sh, redFirst: redFirst,
                                                     to: width, height, captureNs: captureNs, serial: n, scaler: &state.scaler,
                                                     reusing: state.spares.popLast())
            // One in, at most one out (the list never grows past its depth).
            var gone: ScaledCameraPicture? = pictures.withLock { list in
                list.append(picture)
                return list.count > Self.depth ? list.removeFirst() : nil
            }
            // A picture the capture thread still holds is left to it (freed when it lets go).
            if state.spares.count < Self.spareCount, let spare = ScaledCameraPicture.takePixelsIfUnshared(&gone) {
                state.spares.append(spare)
            }
        }
    }

    /// The picture for a screen frame captured at `captureNs` (`CLOCK_MONOTONIC`): the newest
    /// one the camera captured no later than that (the camera's latency taken out: a picture
    /// is never shown before its moment), else the oldest kept; nil before the first picture.
    func picture(for captureNs: UInt64) -> ScaledCameraPicture? {
        pictures.withLock { list in list.last(where: { $0.captureNs <= captureNs }) ?? list.first }
    }
}
