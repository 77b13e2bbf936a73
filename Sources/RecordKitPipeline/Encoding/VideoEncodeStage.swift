import Glibc
import RecordKit
import RecordKitCapture
import RecordKitMedia
import RecordKitSupport
import Synchronization

/// One shared video encoder for one distinct ``VideoEncoderSettings``, on a thread of its own
/// (off the cooperative pool; ``SerialThread``: the recording's thread count stays fixed), with
/// the conversion to yuv420p on a second one. Every handler that asked for these settings gets its packets.
///
/// Capture never waits for encoding. When the encoder falls behind, frames are dropped evenly
/// (``EvenFrameDropper``: all kept below 10 waiting, a share falling with each waiting frame
/// beyond, none at ``maxPending``), counted, and reported once through `onOverload` with how far
/// behind the encoder is.
///
/// Damage: a frame whose picture did not change since the last one converted
/// (``UnchangedPictureTracker``, which also counts the frames it dropped) is not converted
/// again: the last converted picture is encoded at the new time (x264 copies its input). With
/// `spliceSkips` (constant frame rate, libx264, every consumer a file) it is not even encoded:
/// ``StillRunEncoder`` splices a skip picture into x264's output instead.
///
/// `drainWhenStill` (variable frame rate, an encoder with look-ahead): a still screen
/// sends two pictures a second, so x264's look-ahead (about 12 pictures at veryfast with frame
/// threads) would hold the last pictures for six seconds. When an unchanged picture arrives at a
/// slot where a key frame is due, or while x264 still holds a changed picture at least a second
/// old, the unchanged picture is coded as a key frame and x264 is drained and opened again
/// (``VideoEncoder/restart(emit:)``): the key frame's packet comes out at once (a file cuts its
/// fragments at key frames), so when the screen stops changing what changed reaches the file
/// within about a second and a half, and on a still screen the file is at most a key frame
/// interval behind. With libx264 the unchanged picture is coded twice when the encoder is
/// drained, as a key frame and as a reference after it (``VideoEncoder/closeOnStill(_:pts:emit:)``),
/// and while the screen stays still nothing more is encoded: those two packets are shown again
/// (``StillPicture``), the key frame at every key frame slot and the reference at the last
/// repeat before the next, so a still screen costs no encoder work and no encoder restarts. The next changed
/// picture opens a fresh encoder, whose first picture is a key frame. Other encoders are
/// drained and opened again at each key frame slot of a still screen. Moving content (every
/// picture changed) is never drained: x264 keeps its look-ahead, about 0.4 s at 30 fps.
final class VideoEncodeStage: @unchecked Sendable {
    let route: SampleRoute
    private let encoder: VideoEncoder
    private let frameRate: Int
    private let queue: SerialThread  // encodes
    private let pending = Atomic<Int>(0)
    private let droppedFrames = Atomic<Int64>(0)
    private let encodedFrames = Atomic<Int64>(0)
    private let convertedRowCount = Atomic<Int64>(0)
    private let conversionCount = Atomic<Int64>(0)
    private let changes = UnchangedPictureTracker()
    private var lastConverted: ConvertedPicture?  // on `convertQueue` only
    /// The newest picture converted for this encoder (yuv420p at the output size): the
    /// screenshot tap (obs-websocket GetSourceScreenshot) reads the picture the recording
    /// already has instead of capturing a second time. Nil before the first frame and after
    /// stop. Any thread; waits at most for the conversion in progress.
    var latestPicture: ConvertedPicture? { convertQueue.sync { lastConverted } }
    // Converted (yuv420p) pictures waiting for the encoder: 24 is 0.8 s at 30 fps, about 75 MB
    // at 1080p, used only when the encoder falls behind. Beyond 10 the dropper keeps a falling
    // share, so an encoder that can do part of the rate settles mid-queue with room for its
    // bursts. They hold no capture memory: a capture buffer is held only while it is
    // converted, at most `maxConverting` of them (of the pool's 12).
    private let maxPending = 24
    private let maxConverting = 3
    private let converting = Atomic<Int>(0)
    private let convertQueue: SerialThread  // converts to yuv420p
    private var lastPts: Int64 = .min  // on `queue` only
    private var lastFrame: ConvertedPicture?  // on `queue` only: repeated into the final slot at stop
    private var failed = false          // on `queue` only
    private let still: StillRunEncoder?  // on `queue` only
    private let drainWhenStill: Bool
    /// Whether a still screen's picture is coded once and shown again (``StillPicture``) instead
    /// of restarting the encoder at every key frame of a still screen; `RECORDKIT_STILL_PICTURES=0`
    /// restarts (A/B measurements).
    private let keepsStillPictures = getenv("RECORDKIT_STILL_PICTURES").map { String(cString: $0) } != "0"
    private var lastChangedPts: Int64 = .min   // on `queue` only: the newest changed picture fed
    private var heldChangeSince: Int64?        // on `queue` only: the oldest changed picture x264 may still hold
    private var maxEmittedPts: Int64 = .min    // on `queue` only
    /// The still screen's picture, coded once, while nothing changes (``StillPicture``); on `queue` only.
    private var stillPicture: StillPicture?
    private let restartCount = Atomic<Int64>(0)
    private let skippedFrames = Atomic<Int64>(0)
    /// Broadcast time from which the next picture is coded as a key frame (`.max`: none asked).
    private let keyFrameWantedNs = Atomic<Int64>(.max)
    private let onPacket: @Sendable (SampleBuffer) -> Void
    private let onError: @Sendable (MediaError) -> Void
    // Overload handling: drops spread evenly, never in bursts; one report.
    private let dropper: EvenFrameDropper
    private let encodingSlotNs = Atomic<Int64>(0)  // broadcast time of the frame being encoded
    private let onOverload: @Sendable (String) -> Void
    private let describeEncoder: String

    /// `route` is the route it feeds (default: the screen's `.video` route with `settings`; the
    /// camera track's stage is given its `.camera` route).
    init(settings: VideoEncoderSettings, route: SampleRoute? = nil, width: Int, height: Int, frameRate: Int, id: String, lowDelay: Bool = false,
         spliceSkips: Bool = false, drainWhenStill: Bool = false, onPacket: @escaping @Sendable (SampleBuffer) -> Void, onError: @escaping @Sendable (MediaError) -> Void,
         onOverload: @escaping @Sendable (String) -> Void = { _ in }) throws(MediaError) {
        self.route = route ?? .video(.encoded(settings))
        let encoder = try VideoEncoder(settings: settings, inputWidth: width, inputHeight: height, frameRate: frameRate, id: id,
                                       lowDelay: lowDelay)
        self.encoder = encoder
        self.frameRate = frameRate
        self.still = spliceSkips && !lowDelay ? Self.stillRunEncoder(for: encoder, id: id) : nil
        self.drainWhenStill = drainWhenStill && !lowDelay && !spliceSkips
        self.queue = SerialThread(name: Self.threadName("rk-venc-", id))
        self.convertQueue = SerialThread(name: Self.threadName("rk-vcvt-", id))
        self.onPacket = onPacket
        self.onError = onError
        self.onOverload = onOverload
        self.dropper = EvenFrameDropper(softLimit: 10, hardLimit: maxPending)
        self.describeEncoder = "\(id) (\(settings.resolvedEncoderName), \(width)x\(height) at \(frameRate) fps, preset \(settings.preset))"
    }

    /// Queues a frame whose tick was due at broadcast time `slotNs` (its scheduled time).
    ///
    /// The frame is converted to yuv420p on a queue of its own (releasing the capture buffer
    /// within milliseconds), then waits for the encoder as a converted picture.
    func submit(_ frame: CapturedFrame, slotNs broadcastNs: Int64) {
        let waiting = pending.load(ordering: .relaxed)
        let conversionFull = converting.load(ordering: .relaxed) >= maxConverting
        if !dropper.admit(pending: waiting, conversionFull: conversionFull) {
            droppedFrames.add(1, ordering: .relaxed)
            changes.dropped(frame)
            reportOverload(slotNs: broadcastNs)
            return
        }
        pending.add(1, ordering: .relaxed)
        converting.add(1, ordering: .relaxed)
        convertQueue.async { [self] in
            let picture: ConvertedPicture?
            var failure: MediaError?
            var changed = true
            if changes.isUnchanged(frame), let unchanged = lastConverted {
                picture = unchanged  // the same picture again: nothing to convert
                changed = false
            } else if let base = frame.pixels.bytes.baseAddress {
                do throws(MediaError) {
                    picture = try encoder.convert(bgr0: base, bytesPerRow: frame.bytesPerRow, width: frame.width, height: frame.height)
                    lastConverted = picture
                    conversionCount.add(1, ordering: .relaxed)
                    convertedRowCount.add(Int64(frame.height), ordering: .relaxed)
                } catch {
                    picture = nil
                    failure = error
                }
            } else {
                picture = nil
            }
            converting.subtract(1, ordering: .relaxed)
            let isChanged = changed
            queue.async { [self, failure] in
                defer { pending.subtract(1, ordering: .relaxed) }
                guard !failed else { return }
                if let failure {
                    failed = true
                    onError(failure)
                    return
                }
                guard let picture else { return }
                // Constant frame rate: the slot of the tick's due time on the 1/fps grid. Ticks are
                // due on that grid, so two frames never share a slot; should one (a clock step),
                // the second is dropped and counted.
                let pts = (broadcastNs * Int64(frameRate) + 500_000_000) / 1_000_000_000
                guard pts > lastPts else {
                    droppedFrames.add(1, ordering: .relaxed)
                    return
                }
                encode(picture, pts: pts, changed: isChanged)
            }
        }
    }

    /// Codes the first picture of broadcast time `atNs` or later as a key frame (an IDR with
    /// x264's closed GOPs), whether or not one is due: an output attached to (or resumed on) a
    /// running capture at `atNs` starts there instead of waiting up to a key frame interval. The
    /// time matters: an encoder that is behind (up to ``maxPending`` pictures on a loaded
    /// machine) still has older pictures to code, which the output does not take. Any thread;
    /// the earliest of several requests wins. A stage that splices skips (``StillRunEncoder``)
    /// drains x264 and starts a fresh one there, as it does for a key frame due on a still screen.
    func requestKeyFrame(atOrAfter atNs: Int64) {
        var current = keyFrameWantedNs.load(ordering: .relaxed)
        while atNs < current {
            let (exchanged, original) = keyFrameWantedNs.compareExchange(expected: current, desired: atNs, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Whether the picture of slot `pts` is to be a requested key frame; clears the request when it is.
    private func takeKeyFrameRequest(pts: Int64) -> Bool {
        let wanted = keyFrameWantedNs.load(ordering: .relaxed)
        guard wanted != .max, MediaTime(value: pts, timescale: Int32(frameRate)).nanoseconds >= wanted else { return false }
        _ = keyFrameWantedNs.compareExchange(expected: wanted, desired: .max, ordering: .relaxed)
        return true
    }

    /// Tells the user once that the encoder cannot keep up, and by how much.
    private func reportOverload(slotNs: Int64) {
        guard dropper.shouldReport() else { return }
        let behindMs = max(0, (slotNs - encodingSlotNs.load(ordering: .relaxed)) / 1_000_000)
        onOverload("video encoder \(describeEncoder) is behind by \(behindMs) ms: the machine cannot encode every frame, "
            + "so every other frame is dropped until it catches up (a faster --preset, a lower --fps or a smaller --region helps)")
    }

    /// Encodes on `queue`.
    private func encode(_ frame: ConvertedPicture, pts: Int64, changed: Bool = true) {
        encodingSlotNs.store(pts * 1_000_000_000 / Int64(frameRate), ordering: .relaxed)
        SimulatedSlowEncoder.waitIfAsked()
        lastPts = pts
        lastFrame = frame
        let forceKey = takeKeyFrameRequest(pts: pts)
        do throws(MediaError) {
            if let still {
                try still.submit(frame, slot: pts, changed: changed, keyFrame: forceKey, emit: onPacket)
                encodedFrames.store(still.fedFrames, ordering: .relaxed)
                skippedFrames.store(still.skipFrames, ordering: .relaxed)
            } else {
                guard drainWhenStill else {
                    try encoder.encode(frame, pts: pts, keyFrame: forceKey, emit: onPacket)
                    encodedFrames.add(1, ordering: .relaxed)
                    return
                }
                let emit: (SampleBuffer) -> Void = { [self] sample in
                    maxEmittedPts = max(maxEmittedPts, sample.presentationTime.value)
                    onPacket(sample)
                }
                if var held = stillPicture {
                    if !changed {
                        showStill(&held, pts: pts, keyFrame: forceKey || encoder.isKeyFrameDue(at: pts), emit: emit)
                        stillPicture = held
                        return
                    }
                    // The screen changed: a fresh encoder starts with its own key frame. Show
                    // the reference first when the last picture shown was a key frame, so that
                    // two key frames do not follow each other; early enough to leave the fresh
                    // encoder's B-frames their decode times (its reorder delay in slots).
                    if !held.referenceShown { show(&held, keyFrame: false, at: pts - 1 - Int64(encoder.reorderDelay), emit: emit) }
                    stillPicture = nil
                }
                let changeOverdue = heldChangeSince.map { pts - $0 >= Int64(frameRate) } ?? false
                if !changed && (changeOverdue || encoder.isKeyFrameDue(at: pts)) {
                    // The unchanged picture as a key frame, then drain: the key frame's packet
                    // comes out now, and a file cuts its fragment there (kill -9 safety). Its
                    // packets are kept: until the screen changes, nothing is encoded.
                    if keepsStillPictures {
                        stillPicture = try encoder.closeOnStill(frame, pts: pts, emit: emit)
                    } else {
                        try encoder.encode(frame, pts: pts, keyFrame: true, emit: emit)
                        try encoder.restart(emit: emit)
                    }
                    restartCount.add(1, ordering: .relaxed)
                } else {
                    try encoder.encode(frame, pts: pts, keyFrame: forceKey, emit: emit)
                }
                encodedFrames.add(1, ordering: .relaxed)
                if changed {
                    lastChangedPts = pts
                    if heldChangeSince == nil { heldChangeSince = pts }
                }
                if maxEmittedPts >= lastChangedPts { heldChangeSince = nil }
            }
        } catch {
            failed = true
            onError(error)
        }
    }

    /// A slot of a still screen while its picture is held (`still`): a key frame when one is
    /// due (after the reference, when the key frame shown last has none after it yet), the
    /// reference at the last repeat before the next key frame is due, otherwise nothing: the
    /// file holds the picture already. The reference comes late on purpose: a file's fragment
    /// ends before a key frame, so a file cut short (kill -9) before the next one still holds
    /// video up to about half a second before it, as when every repeat was encoded. On `queue` only.
    private func showStill(_ still: inout StillPicture, pts: Int64, keyFrame: Bool, emit: (SampleBuffer) -> Void) {
        if keyFrame {
            if !still.referenceShown { show(&still, keyFrame: false, at: pts - 1, emit: emit) }
            // No room for the reference before: it goes here, the key frame (still due) next.
            show(&still, keyFrame: still.referenceShown, at: pts, emit: emit)
        } else if !still.referenceShown, pts + Int64(max(1, frameRate / 2)) >= encoder.nextKeyFrameSlot {
            show(&still, keyFrame: false, at: pts, emit: emit)
        }
    }

    /// Shows a picture of `still` (``VideoEncoder/show(_:keyFrame:at:emit:)``), counted with
    /// the skips: a slot filled without the encoder. On `queue` only.
    private func show(_ still: inout StillPicture, keyFrame: Bool, at pts: Int64, emit: (SampleBuffer) -> Void) {
        if encoder.show(&still, keyFrame: keyFrame, at: pts, emit: emit) { skippedFrames.add(1, ordering: .relaxed) }
    }

    /// Ends the stream at broadcast time `endNs`: when the last frames were dropped (a loaded
    /// machine), the last frame is repeated into the slot that contains the end, as a
    /// constant-frame-rate recorder does, so the video lasts as long as the recording. Then
    /// drains the encoder and emits the remaining packets; returns when done.
    func finish(at endNs: Int64) {
        convertQueue.sync { lastConverted = nil }  // every conversion has queued its encode
        queue.sync {
            guard !failed else { return }
            let finalSlot = (endNs * Int64(frameRate) + 999_999_999) / 1_000_000_000 - 1
            if let still {
                lastFrame = nil
                do throws(MediaError) { try still.finish(finalSlot: finalSlot, emit: onPacket) } catch { onError(error) }
                encodedFrames.store(still.fedFrames, ordering: .relaxed)
                skippedFrames.store(still.skipFrames, ordering: .relaxed)
                return
            }
            if var held = stillPicture {
                // The still picture into the final slot, without the encoder.
                if held.lastShownPts < finalSlot { show(&held, keyFrame: held.referenceShown, at: finalSlot, emit: onPacket) }
                stillPicture = nil
            } else if let frame = lastFrame, lastPts < finalSlot {
                encode(frame, pts: finalSlot)
            }
            lastFrame = nil
            do throws(MediaError) { try encoder.finish(emit: onPacket) } catch { onError(error) }
        }
        // Nothing more to encode or convert: the threads end (a late call runs on its caller's).
        queue.close()
        convertQueue.close()
    }

    /// A thread name of at most 15 bytes: `prefix` and the encoder's id without its codec name
    /// (`rk-venc-2` for `h264-2`, `rk-venc-cam-4` for the camera track's `camera-h264-4`).
    static func threadName(_ prefix: String, _ id: String) -> String {
        let number = id.split(separator: "-").last.map(String.init) ?? id
        return prefix + (id.hasPrefix("camera-") ? "cam-" : "") + number
    }

    /// Splicing skips for `encoder`, or nil with the reason in the debug log (`RECORDKIT_DEBUG=1`)
    /// when its stream cannot take them (not libx264, no POC type 0, ...) or
    /// `RECORDKIT_SKIP_SPLICING=0` turns splicing off: then every slot is encoded.
    private static func stillRunEncoder(for encoder: VideoEncoder, id: String) -> StillRunEncoder? {
        if let value = getenv("RECORDKIT_SKIP_SPLICING"), String(cString: value) == "0" {
            debugLog("video encoder \(id): no skip splicing: RECORDKIT_SKIP_SPLICING=0")
            return nil  // A/B measurements, and tests of what x264 alone does with every slot
        }
        guard encoder.format.codec == .h264, encoder.encoderName == "libx264" else {
            debugLog("video encoder \(id): no skip splicing: \(encoder.encoderName) is not libx264")
            return nil
        }
        do throws(MediaError) { return try StillRunEncoder(encoder: encoder) } catch {
            debugLog("video encoder \(id): no skip splicing: \(error.message)")
            return nil
        }
    }

    private static func debugLog(_ message: String) {
        guard getenv("RECORDKIT_DEBUG") != nil else { return }
        let line = "recordkit: " + message + "\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    /// The encoded stream's description (with splicing, the `avcC` holds the skip slices' PPS too).
    var format: EncodedFormat { still?.format ?? encoder.format }
    /// Skip pictures spliced in for unchanged slots (constant frame rate, see ``StillRunEncoder``).
    var skipped: Int64 { skippedFrames.load(ordering: .relaxed) }
    /// Times the encoder was drained and opened again on a still screen (`drainWhenStill`).
    var restarts: Int64 { restartCount.load(ordering: .relaxed) }
    /// Frames dropped because the encoder was behind.
    var dropped: Int64 { droppedFrames.load(ordering: .relaxed) }
    /// Frames given to the encoder.
    var encoded: Int64 { encodedFrames.load(ordering: .relaxed) }
    /// Picture rows converted to yuv420p so far.
    var convertedRows: Int64 { convertedRowCount.load(ordering: .relaxed) }
    /// Frames converted (a frame whose picture did not change is not).
    var conversions: Int64 { conversionCount.load(ordering: .relaxed) }
}
