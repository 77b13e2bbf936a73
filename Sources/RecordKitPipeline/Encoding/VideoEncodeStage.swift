import Dispatch
import RecordKit
import RecordKitCapture
import RecordKitMedia
import Synchronization

/// One shared H.264 encoder for one distinct ``VideoEncoderSettings``, on a serial queue of its
/// own (off the cooperative pool). Every handler that asked for these settings gets its packets.
///
/// Frames wait at most ``maxPending`` deep; a frame that finds the encoder further behind is
/// dropped and counted, so capture never waits for encoding.
final class VideoEncodeStage: @unchecked Sendable {
    let route: SampleRoute
    private let encoder: VideoEncoder
    private let frameRate: Int
    private let queue: DispatchQueue
    private let pending = Atomic<Int>(0)
    private let droppedFrames = Atomic<Int64>(0)
    private let encodedFrames = Atomic<Int64>(0)
    private let convertedRowCount = Atomic<Int64>(0)
    private let conversionCount = Atomic<Int64>(0)
    private let maxPending = 6  // of the capture pool's 12 buffers: one is being grabbed, one kept for the final slot, the rest for raw handlers
    private var lastPts: Int64 = .min  // on `queue` only
    private var lastFrame: CapturedFrame?  // on `queue` only: repeated into the final slot at stop
    private let changes = PictureChangeTracker()  // issue 11: what the kept picture lacks (damage-driven conversion)
    private var failed = false          // on `queue` only
    private let onPacket: @Sendable (SampleBuffer) -> Void
    private let onError: @Sendable (MediaError) -> Void

    init(settings: VideoEncoderSettings, width: Int, height: Int, frameRate: Int, id: String, lowDelay: Bool = false,
         onPacket: @escaping @Sendable (SampleBuffer) -> Void, onError: @escaping @Sendable (MediaError) -> Void) throws(MediaError) {
        self.route = .video(.encoded(settings))
        self.encoder = try VideoEncoder(settings: settings, inputWidth: width, inputHeight: height, frameRate: frameRate, id: id,
                                        lowDelay: lowDelay)
        self.frameRate = frameRate
        self.queue = DispatchQueue(label: "recordkit.encode.\(id)", qos: .userInteractive)
        self.onPacket = onPacket
        self.onError = onError
    }

    /// Queues a frame whose tick was due at broadcast time `slotNs` (its scheduled time).
    func submit(_ frame: CapturedFrame, slotNs broadcastNs: Int64) {
        if pending.load(ordering: .relaxed) >= maxPending {
            droppedFrames.add(1, ordering: .relaxed)
            changes.dropped(frame)
            return
        }
        pending.add(1, ordering: .relaxed)
        queue.async { [self] in
            defer { pending.subtract(1, ordering: .relaxed) }
            guard !failed else { return }
            // Constant frame rate: the slot of the tick's due time on the 1/fps grid. Ticks are
            // due on that grid, so two frames never share a slot; should one (a clock step),
            // the second is dropped and counted.
            let pts = (broadcastNs * Int64(frameRate) + 500_000_000) / 1_000_000_000
            guard pts > lastPts else {
                droppedFrames.add(1, ordering: .relaxed)
                changes.dropped(frame)
                return
            }
            encode(frame, pts: pts)
        }
    }

    /// Encodes on `queue`.
    private func encode(_ frame: CapturedFrame, pts: Int64) {
        guard let base = frame.pixels.bytes.baseAddress else { return }
        lastPts = pts
        lastFrame = frame
        let change = changes.change(for: frame)
        do throws(MediaError) {
            try encoder.encode(bgr0: base, bytesPerRow: frame.bytesPerRow, width: frame.width, height: frame.height,
                               pts: pts, change: change, emit: onPacket)
            convertedRowCount.store(encoder.convertedRows, ordering: .relaxed)
            conversionCount.store(encoder.conversions, ordering: .relaxed)
            encodedFrames.add(1, ordering: .relaxed)
        } catch {
            failed = true
            onError(error)
        }
    }

    /// Ends the stream at broadcast time `endNs`: when the last frames were dropped (a loaded
    /// machine), the last frame is repeated into the slot that contains the end, as a
    /// constant-frame-rate recorder does, so the video lasts as long as the recording. Then
    /// drains the encoder and emits the remaining packets; returns when done.
    func finish(at endNs: Int64) {
        queue.sync {
            guard !failed else { return }
            let finalSlot = (endNs * Int64(frameRate) + 999_999_999) / 1_000_000_000 - 1
            if let frame = lastFrame, lastPts < finalSlot { encode(frame, pts: finalSlot) }
            lastFrame = nil
            do throws(MediaError) { try encoder.finish(emit: onPacket) } catch { onError(error) }
        }
    }

    /// The encoded stream's description.
    var format: EncodedFormat { encoder.format }
    /// Frames dropped because the encoder was behind.
    var dropped: Int64 { droppedFrames.load(ordering: .relaxed) }
    /// Frames encoded.
    var encoded: Int64 { encodedFrames.load(ordering: .relaxed) }
    /// Picture rows converted to yuv420p so far.
    var convertedRows: Int64 { convertedRowCount.load(ordering: .relaxed) }
    /// Frames whose conversion converted at least one row.
    var conversions: Int64 { conversionCount.load(ordering: .relaxed) }
}
