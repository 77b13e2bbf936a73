import RecordKitCapture
import Synchronization

/// Tells an encoder stage whether a frame shows exactly the picture it converted last, so it
/// can encode that picture again instead of converting (a still screen). Frames the
/// stage dropped count too: a dropped frame that changed the screen makes every later frame
/// "changed" until one is converted.
///
/// `dropped(_:)` may be called from any thread (the capture thread drops at submit);
/// `isUnchanged(_:)` runs on the stage's conversion queue. Frames arrive in capture order.
final class UnchangedPictureTracker: Sendable {
    private struct Dropped {
        let sequence: Int64
        let previous: Int64?
        let changed: Bool
    }
    private let droppedFrames = Mutex<[Dropped]>([])
    /// The frame the kept picture shows.
    private let converted = Mutex<Int64?>(nil)

    /// Notes a frame that will not be converted.
    func dropped(_ frame: CapturedFrame) {
        let entry = Dropped(sequence: frame.sequence, previous: frame.previousSequence, changed: frame.isChanged)
        droppedFrames.withLock { list in
            list.append(entry)
            if list.count > 64 { list.removeFirst(list.count - 64) }  // a long backlog: the chain check fails, "changed"
        }
    }

    /// Whether `frame` shows the kept picture, counting the frames dropped in between; then
    /// records that the picture now shows `frame` (the caller converts it when it changed).
    func isUnchanged(_ frame: CapturedFrame) -> Bool {
        let before = converted.withLock { value -> Int64? in
            defer { value = frame.sequence }
            return value
        }
        let between = droppedFrames.withLock { list -> [Dropped] in
            let taken = list.filter { $0.sequence < frame.sequence }
            list.removeAll { $0.sequence < frame.sequence }
            return taken
        }
        guard var expected = before else { return false }
        if frame.sequence == expected { return true }  // the same frame again (the final slot at stop)
        for entry in between {
            // A frame neither converted nor noted breaks the chain; a dropped one that changed counts.
            guard entry.previous == expected, !entry.changed else { return false }
            expected = entry.sequence
        }
        return frame.previousSequence == expected && !frame.isChanged
    }
}
