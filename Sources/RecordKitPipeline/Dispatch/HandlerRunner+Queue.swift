import RecordKit
import RecordKitSupport

/// The runner's own queue, for a handler that does not own one: bounded, in order, serial.
extension HandlerRunner {
    /// Queues `incoming` on the runner's queue for a handler that does not own its queue, when
    /// it is the output's (its window admits it), with the bounds of ``Limits``: video beyond
    /// them is dropped (encoded video up to the next key frame), audio beyond them ends the
    /// handler (``BroadcastError/Kind/overrun``). Never blocks.
    func enqueueOnQueue(_ incoming: SampleBuffer) {
        let isVideo = incoming.type == .video
        var overrun = false
        var placement: OutputWindow.Placement?
        let accept: Bool = state.withLock { s in
            if ended.load(ordering: .relaxed) { return false }
            guard let placed = s.window.placement(of: incoming) else { return false }
            placement = placed
            let sample = incoming
            if isVideo {
                if s.droppingVideoUntilKeyFrame, case .packet(let p) = sample.payload, !p.isKeyFrame {
                    s.stats.droppedVideo += 1
                    return false
                }
                let bound: Int
                if case .pixels = sample.payload { bound = min(limits.video, limits.rawVideo) } else { bound = limits.video }
                if s.pendingVideo >= bound {
                    s.stats.droppedVideo += 1
                    if case .packet = sample.payload { s.droppingVideoUntilKeyFrame = true }
                    return false
                }
                s.droppingVideoUntilKeyFrame = false
                s.pendingVideo += 1
            } else {
                if s.pendingAudio >= limits.audio { overrun = true; return false }
                s.pendingAudio += 1
            }
            s.stats.queued = s.pendingVideo + s.pendingAudio
            s.stats.queueHighWater = max(s.stats.queueHighWater, s.stats.queued)
            return true
        }
        if overrun {
            end(with: BroadcastError(.overrun, "handler '\(name)' fell more than \(limits.audio) audio buffers behind; "
                + "it was ended rather than have audio dropped"))
            return
        }
        guard accept, let placement else { return }
        let sample = placement.apply(to: incoming)
        let handler = UncheckedHandler(self.handler)
        queue.async { [self] in
            let skip = ended.load(ordering: .relaxed)
            if !skip { handler.value.processSampleBuffer(sample, with: sample.type) }
            state.withLock { s in
                if isVideo { s.pendingVideo -= 1 } else { s.pendingAudio -= 1 }
                s.stats.queued = s.pendingVideo + s.pendingAudio
                if !skip {
                    s.stats.delivered += 1
                    s.stats.bytesDelivered += Int64(sample.byteCount)
                }
            }
        }
    }
}
