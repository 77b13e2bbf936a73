import RecordKit
import RecordKitSupport

extension CaptureSession {
    /// The damage-driven tick: returns nil when this tick needs a full grab (no DAMAGE, no
    /// persistent picture yet, the target moved or is not fully on screen), otherwise the
    /// outcome: ``TickOutcome/unchanged`` with nothing grabbed, or a frame whose damaged
    /// rectangles (and cursor area) were grabbed and the rest copied from the previous frame.
    func incrementalTick(_ outcome: GrabPlan.Outcome, originX: Int, originY: Int, sequence: Int64,
                         scheduledTime: UInt64, counters: CaptureCounters) -> TickOutcome? {
        guard var state = incremental else { return nil }
        defer { incremental = state }
        let damagedRoot = state.damage.collect()
        guard case .grab(let plan) = outcome, let last = state.last,
              plan.isInPlace(outputWidth: width, outputHeight: height),
              plan.grabX == last.grabX, plan.grabY == last.grabY else { return nil }
        let area = PixelRect(x: plan.grabX, y: plan.grabY, width: width, height: height)
        var dirty = state.carried
        var damagedPixels = 0
        for rect in damagedRoot {
            guard let inside = rect.intersection(area) else { continue }
            damagedPixels += inside.width * inside.height
            dirty.add(PixelRect(x: inside.x - area.x, y: inside.y - area.y, width: inside.width, height: inside.height))
        }
        let cursorNow = cursor?.update()
        let toFrame = { (rect: PixelRect) in PixelRect(x: rect.x - area.x, y: rect.y - area.y, width: rect.width, height: rect.height) }
        if cursorNow != state.lastCursor {
            if let old = state.lastCursor { dirty.add(toFrame(old.rect)) }
            if let now = cursorNow { dirty.add(toFrame(now.rect)) }
        }
        if damagedPixels > 0 { counters.update { $0.damagedPixels += Int64(damagedPixels) } }
        if dirty.isEmpty {
            counters.update { $0.unchangedTicks += 1 }
            return .unchanged
        }
        // Most of the frame changed (a video, scrolling): one direct full grab is cheaper than
        // rectangles through the scratch buffer.
        if dirty.area * 2 > width * height { return nil }
        guard let slot = grabber.pool.acquire() else {
            state.carried = dirty
            return .poolExhausted
        }
        // The cursor drawn into the last frame must not be copied and blended twice: grab its area.
        var written = dirty
        if let now = cursorNow { written.add(toFrame(now.rect)) }
        grabber.copy(rects: state.stale[slot].rects, from: last.slot, to: slot)
        let before = MonotonicClock.nanoseconds()
        let ok = grabber.grab(rects: written.rects, into: slot, originX: area.x, originY: area.y, scratch: state.scratchSlot)
        let after = MonotonicClock.nanoseconds()
        let grabbed = written.area
        counters.update { $0.grabs += Int64(written.rects.count); $0.grabbedPixels += Int64(grabbed) }
        guard ok else {
            grabber.pool.giveBack(slot)
            state.invalidate()
            return nil
        }
        let pixels = grabber.pool.address(ofSlot: slot)
        cursor?.drawLast(into: pixels, bytesPerRow: grabber.bytesPerRow, originX: area.x, originY: area.y,
                         clip: PixelRect(x: 0, y: 0, width: width, height: height))
        let buffer = grabber.pool.buffer(slot: slot, byteCount: grabber.bytesPerRow * height)
        let frame = CapturedFrame(pixels: buffer, bytesPerRow: grabber.bytesPerRow, width: width, height: height,
                                  captureTime: before + (after - before) / 2, sequence: sequence, scheduledTime: scheduledTime,
                                  isChanged: true, dirtyRects: written.rects, previousSequence: state.lastSequence)
        state.tookIncrementalFrame(frame, slot: slot, written: written, cursor: cursorNow)
        return .frame(frame)
    }

    /// The last delivered picture again, as a new frame of tick `sequence` (nothing grabbed), or
    /// nil when there is no persistent picture.
    func repeatFrame(sequence: Int64, scheduledTime: UInt64) -> CapturedFrame? {
        guard var state = incremental, let last = state.last else { return nil }
        let frame = CapturedFrame(pixels: last.frame.pixels, bytesPerRow: last.frame.bytesPerRow, width: width, height: height,
                                  captureTime: MonotonicClock.nanoseconds(), sequence: sequence, scheduledTime: scheduledTime,
                                  isChanged: false, dirtyRects: [], previousSequence: state.lastSequence)
        state.repeated(sequence: sequence)
        incremental = state
        return frame
    }

    /// Whether ticks are damage-driven.
    var tracksDamage: Bool { incremental != nil }
}
