import RecordKitCapture
import RecordKitMedia
import Synchronization

/// What an encoder stage's kept yuv420p picture lacks (issue 11): frames the stage dropped
/// (it was behind, or two frames fell into one slot) still changed the screen, so the next
/// frame it converts must also convert their dirty rows. Without this every drop costs a full
/// conversion, exactly when the machine is short of CPU.
///
/// `dropped(_:)` may be called from any thread (the capture thread drops at submit);
/// `change(for:)` runs on the stage's queue. Frames arrive in capture order.
final class PictureChangeTracker: Sendable {
    private struct Dropped {
        let sequence: Int64
        let previous: Int64?
        let change: PictureChange
    }
    private let droppedFrames = Mutex<[Dropped]>([])
    /// The frame the kept picture shows (the stage's queue only, guarded for Sendable).
    private let converted = Mutex<Int64?>(nil)

    /// Notes a frame that will not be converted.
    func dropped(_ frame: CapturedFrame) {
        let entry = Dropped(sequence: frame.sequence, previous: frame.previousSequence,
                            change: frame.isChanged ? (frame.dirtyRects.map { .rows($0.map { $0.y..<($0.y + $0.height) }) } ?? .all) : .none)
        droppedFrames.withLock { list in
            list.append(entry)
            if list.count > 64 { list.removeFirst(list.count - 64) }  // a long backlog: the chain check fails, full conversion
        }
    }

    /// How `frame` differs from the kept picture, counting the frames dropped in between; then
    /// records that the picture now shows `frame`.
    func change(for frame: CapturedFrame) -> PictureChange {
        let before = converted.withLock { value -> Int64? in
            defer { value = frame.sequence }
            return value
        }
        let between = droppedFrames.withLock { list -> [Dropped] in
            let taken = list.filter { $0.sequence < frame.sequence }
            list.removeAll { $0.sequence < frame.sequence }
            return taken
        }
        guard var expected = before else { return .all }
        if frame.sequence == expected { return .none }  // the same frame again (the final slot at stop)
        var rows: [Range<Int>] = []
        var everything = false
        for entry in between {
            guard entry.previous == expected else { return .all }  // a frame neither converted nor noted
            expected = entry.sequence
            switch entry.change {
            case .all: everything = true
            case .none: break
            case .rows(let r): rows += r
            }
        }
        let own = frame.pictureChange(after: expected)
        if everything || own == .all { return .all }
        if case .rows(let r) = own { rows += r }
        return rows.isEmpty ? .none : .rows(rows)
    }
}
