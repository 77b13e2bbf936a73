import RecordKit
import RecordKitMedia

/// Constant frame rate at almost no cost on a still screen: x264 gets only the
/// pictures that changed (plus one every ``H264SkipSplicer/longestRun`` + 1 slots and at key
/// frame slots), and every other slot becomes a spliced all-skip picture (``H264SkipSplicer``)
/// that repeats the last picture exactly, for a few bytes and no encoder work.
///
/// At a key frame slot inside a still run x264 is drained and opened again
/// (``VideoEncoder/restart(emit:)``): its look-ahead would otherwise hold the last pictures (and
/// the skips that follow them) until a dozen more frames arrive, which on a still screen takes
/// seconds; so the file is at most a GOP behind.
///
/// The newest changed picture is held back one tick: only then is it known whether unchanged
/// slots follow it, in which case it is coded as a P picture (the *anchor* its skips repeat).
/// The picture fed after unchanged slots is coded as P too, so that B-frames only ever lie
/// between contiguous slots (see ``H264SkipSplicer``). With moving content (no unchanged slot,
/// nothing dropped) x264 gets the same frames with the same types as without splicing: the same
/// stream, one tick later. A slot left out because the stage dropped its frame (overload) is
/// filled with a skip as well.
///
/// Threading: used from the encode stage's serial queue only.
final class StillRunEncoder {
    private struct Held {
        let picture: ConvertedPicture
        let slot: Int64
        let afterGap: Bool
    }
    private let encoder: VideoEncoder
    private var splicer: H264SkipSplicer
    /// The format of the spliced stream: the encoder's with the skip PPS in its `avcC`.
    let format: EncodedFormat
    private var held: Held?
    private var anchor: (picture: ConvertedPicture, slot: Int64)?
    private var filledUpTo: Int64 = .min  // the last slot fed or skipped
    /// Frames given to x264.
    private(set) var fedFrames: Int64 = 0
    /// Skip pictures spliced in.
    private(set) var skipFrames: Int64 = 0
    /// Times x264 was drained and opened again at a key frame slot of a still run.
    private(set) var restarts: Int64 = 0

    /// Splicing for `encoder` (libx264, already open); throws the reason when its stream cannot
    /// take skips (``H264SkipSplicer/init(avcC:reorderDelay:)``).
    init(encoder: VideoEncoder) throws(MediaError) {
        self.encoder = encoder
        self.splicer = try H264SkipSplicer(avcC: encoder.format.extradata, reorderDelay: encoder.reorderDelay)
        var format = encoder.format
        format.extradata = splicer.avcC
        self.format = format
    }

    /// The longest run of skips between two fed slots.
    var longestRun: Int { splicer.longestRun }

    /// Takes the picture of frame slot `slot` (slots increase strictly; missing ones were
    /// dropped), `changed` false when it is the picture of the slot before. `keyFrame`: code
    /// this picture as a key frame (an output attached at this slot starts here): what x264
    /// holds is drained first, as for a key frame due on a still screen.
    func submit(_ picture: ConvertedPicture, slot: Int64, changed: Bool, keyFrame: Bool = false,
                emit: (SampleBuffer) -> Void) throws(MediaError) {
        if keyFrame, anchor != nil {
            if let h = held {
                try feed(h.picture, slot: h.slot, asReference: true, emit: emit)
                held = nil
            }
            for missing in (filledUpTo + 1)..<max(filledUpTo + 1, slot) { try fillUnchanged(missing, emit: emit) }
            try restartEncoder(emit: emit)
            try feed(picture, slot: slot, asReference: true, keyFrame: true, emit: emit)
            return
        }
        if let h = held {
            if changed && slot == h.slot + 1 {
                try feed(h.picture, slot: h.slot, asReference: h.afterGap, emit: emit)
                held = Held(picture: picture, slot: slot, afterGap: false)
                return
            }
            try feed(h.picture, slot: h.slot, asReference: true, emit: emit)
            held = nil
        }
        guard anchor != nil else {
            held = Held(picture: picture, slot: slot, afterGap: false)  // the first frame
            return
        }
        for missing in (filledUpTo + 1)..<max(filledUpTo + 1, slot) { try fillUnchanged(missing, emit: emit) }
        if changed {
            held = Held(picture: picture, slot: slot, afterGap: slot > (anchor?.slot ?? slot) + 1)
        } else {
            try fillUnchanged(slot, emit: emit)
        }
    }

    /// Ends the stream with the last picture repeated up to `finalSlot` (the slot that holds the
    /// end of the recording), drains x264 and emits everything left.
    func finish(finalSlot: Int64, emit: (SampleBuffer) -> Void) throws(MediaError) {
        if let h = held {
            try feed(h.picture, slot: h.slot, asReference: h.afterGap || finalSlot > h.slot, emit: emit)
            held = nil
        }
        if anchor != nil, finalSlot > filledUpTo {
            for slot in (filledUpTo + 1)...finalSlot { try fillUnchanged(slot, emit: emit) }
        }
        var failure: MediaError?
        try encoder.finish { sample in
            guard failure == nil else { return }
            do throws(MediaError) { try splice(sample, emit: emit) } catch { failure = error }
        }
        if let failure { throw failure }
        for output in try splicer.finish() { emit(sample(output)) }
    }

    /// A slot showing the anchor's picture: a skip, or the picture fed again when a key frame
    /// is due or the run would grow too long for the POC field.
    private func fillUnchanged(_ slot: Int64, emit: (SampleBuffer) -> Void) throws(MediaError) {
        guard let last = anchor else { return }
        if encoder.isKeyFrameDue(at: slot) {
            // A still run reaches a key frame slot: drain x264 (what it holds goes out, and the
            // skips waiting for it), start a fresh one with the still picture as its IDR, so the
            // file is never more than a GOP behind while the screen stays still.
            try restartEncoder(emit: emit)
            try feed(last.picture, slot: slot, asReference: true, emit: emit)
        } else if slot - last.slot > Int64(splicer.longestRun) {
            try feed(last.picture, slot: slot, asReference: true, emit: emit)
        } else {
            splicer.addSkip(slot: slot, anchor: last.slot)
            skipFrames += 1
            filledUpTo = slot
        }
    }

    /// Drains x264 (what it holds goes out, and the skips waiting for it) and starts a fresh
    /// one: the next picture fed is its IDR.
    private func restartEncoder(emit: (SampleBuffer) -> Void) throws(MediaError) {
        var failure: MediaError?
        try encoder.restart { sample in
            guard failure == nil else { return }
            do throws(MediaError) { try splice(sample, emit: emit) } catch { failure = error }
        }
        if let failure { throw failure }
        for output in try splicer.finish() { emit(sample(output)) }
        restarts += 1
    }

    private func feed(_ picture: ConvertedPicture, slot: Int64, asReference: Bool, keyFrame: Bool = false,
                      emit: (SampleBuffer) -> Void) throws(MediaError) {
        var failure: MediaError?
        try encoder.encode(picture, pts: slot, asReference: asReference, keyFrame: keyFrame) { sample in
            guard failure == nil else { return }
            do throws(MediaError) { try splice(sample, emit: emit) } catch { failure = error }
        }
        if let failure { throw failure }
        fedFrames += 1
        anchor = (picture, slot)
        filledUpTo = slot
    }

    private func splice(_ sample: SampleBuffer, emit: (SampleBuffer) -> Void) throws(MediaError) {
        guard case .packet(let packet) = sample.payload else { return }
        let outputs = try splicer.process(Array(packet.data.bytes), pts: sample.presentationTime.value,
                                          isKeyFrame: packet.isKeyFrame)
        for output in outputs { emit(self.sample(output, encoderID: packet.encoderID)) }
    }

    private func sample(_ output: H264SkipSplicer.Output, encoderID: String? = nil) -> SampleBuffer {
        let timescale = format.timescale
        let packet = EncodedPacket(data: MediaBuffer(copying: output.data), decodeTime: MediaTime(value: output.dts, timescale: timescale),
                                   isKeyFrame: output.isKeyFrame, encoderID: encoderID ?? encoder.id)
        return SampleBuffer(type: .video, presentationTime: MediaTime(value: output.pts, timescale: timescale),
                            duration: MediaTime(value: 1, timescale: timescale), formatDescription: .encoded(format),
                            payload: .packet(packet))
    }
}
