/// What damage-driven capture remembers between ticks: the last delivered frame (the
/// persistent picture new frames start from), and for every pool slot which rectangles of it are
/// stale against that picture.
///
/// A slot that comes back from consumers still holds the picture of the frame it carried then;
/// bringing it up to date costs copying its stale rectangles from the last frame plus grabbing
/// what is damaged now, never a full grab. With consumers that release frames promptly, slots
/// alternate and "stale" is just the previous tick's damage.
///
/// Confined to the capture thread, like its ``CaptureSession``.
struct IncrementalState {
    /// The frame delivered last, and where it lives.
    struct Last {
        var frame: CapturedFrame
        var slot: Int
        var grabX: Int
        var grabY: Int
    }

    /// Damage from the X server.
    let damage: DamageTracker
    /// A pool slot kept for the X server to write damaged rectangles into.
    let scratchSlot: Int
    /// The last delivered frame; nil until a full grab, or after anything made it unreliable.
    private(set) var last: Last?
    /// ``CapturedFrame/sequence`` of the last delivered frame (changed or repeated).
    private(set) var lastSequence: Int64?
    /// Per pool slot: rectangles where its pixels may differ from ``last``.
    var stale: [DirtyRegion]
    /// Damage seen but not yet applied (a tick whose pool was exhausted).
    var carried: DirtyRegion
    /// The cursor as drawn into ``last``.
    var lastCursor: CursorOverlay.State?
    private let width: Int
    private let height: Int

    init(damage: DamageTracker, scratchSlot: Int, slotCount: Int, width: Int, height: Int) {
        self.damage = damage
        self.scratchSlot = scratchSlot
        self.width = width
        self.height = height
        self.stale = Array(repeating: .full(width: width, height: height), count: slotCount)
        self.carried = DirtyRegion(width: width, height: height)
    }

    /// Forgets the persistent picture: the next tick grabs everything.
    mutating func invalidate() {
        last = nil
    }

    /// Records a frame made by a full grab (or painted black) into `slot`.
    mutating func tookFullFrame(_ frame: CapturedFrame, slot: Int, outcome: GrabPlan.Outcome,
                                originX: Int, originY: Int, cursor: CursorOverlay.State?) {
        for index in stale.indices where index != slot { stale[index] = .full(width: width, height: height) }
        stale[slot].removeAll()
        carried.removeAll()
        lastSequence = frame.sequence
        lastCursor = cursor
        if case .grab(let plan) = outcome, plan.isInPlace(outputWidth: width, outputHeight: height) {
            last = Last(frame: frame, slot: slot, grabX: plan.grabX, grabY: plan.grabY)
        } else {
            last = nil
        }
    }

    /// Records a frame made incrementally into `slot`, where `written` was refreshed.
    mutating func tookIncrementalFrame(_ frame: CapturedFrame, slot: Int, written: DirtyRegion, cursor: CursorOverlay.State?) {
        for index in stale.indices where index != slot { stale[index].add(written) }
        stale[slot].removeAll()
        carried.removeAll()
        lastSequence = frame.sequence
        lastCursor = cursor
        if var current = last {
            current.frame = frame
            current.slot = slot
            last = current
        }
    }

    /// Records a repeated frame's sequence.
    mutating func repeated(sequence: Int64) {
        lastSequence = sequence
    }
}
