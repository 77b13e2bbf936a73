import RecordKit
import Synchronization

/// The capture frames an extension holds without a copy, by ref, kept alive until it releases
/// them. Thread-safe: when the extension fails, the ``ExtensionSupervisor`` lets go of them at
/// once, from whichever thread found the failure, so a dead extension never keeps capture-pool
/// buffers from the recording.
final class LentFrames: Sendable {
    private let frames = Mutex<[Int: SampleBuffer]>([:])

    /// Keeps `sample` alive under `ref`.
    func add(_ sample: SampleBuffer, ref: Int) { frames.withLock { $0[ref] = sample } }

    /// Lets go of `ref`; false when it is not held.
    func remove(_ ref: Int) -> Bool { frames.withLock { $0.removeValue(forKey: ref) != nil } }

    /// Lets go of every frame (the extension can no longer read them).
    func removeAll() { frames.withLock { $0.removeAll() } }

    /// How many frames are held.
    var count: Int { frames.withLock { $0.count } }
}
