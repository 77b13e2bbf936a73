import CPipeWire
import Glibc
import RecordKit
import RecordKitCapture
import Synchronization

/// Takes each buffer of a PipeWire video stream on PipeWire's own thread and copies the
/// recorded rectangle into a pooled BGR0 buffer (the copy path: the stream's buffer goes back
/// to the compositor at once), then queues it for the pacing thread, which takes every picture
/// in order (``PendingPictures``: each picture's damage is relative to the one before it).
/// RGBx/RGBA are swapped into BGR0 on the way.
///
/// Thread-safe: `receive` runs on PipeWire's thread, `takeAll(into:)` and `endReason` on the
/// pacing thread; they share only the mutex-guarded state and the pool.
final class PipeWireFrameReceiver: @unchecked Sendable {
    /// A picture not yet delivered: a pooled buffer, its capture time, and its changed
    /// rectangles in output coordinates (even-aligned; nil: unknown).
    typealias Picture = PendingPictures<MediaBuffer>.Entry

    /// Pictures waiting for the pacing thread at most (about 130 ms at 30 fps); the pacing thread
    /// takes them every tick, so more than one waits only when two arrive within one tick.
    static let pendingCapacity = 4

    private let crop: PixelRect
    private let pool: FramePool
    private let counters: CaptureCounters
    private let pending: Mutex<PendingPictures<MediaBuffer>>
    private let ended = Mutex<String?>(nil)
    private let streaming = Atomic<Bool>(false)

    /// Copies `crop` (stream pixels; even width and height) of each frame, with buffers from
    /// `pool` (slots of at least `crop.width` × 4 × `crop.height` bytes).
    init(crop: PixelRect, pool: FramePool, counters: CaptureCounters) {
        self.crop = crop
        self.pool = pool
        self.counters = counters
        self.pending = Mutex(PendingPictures(capacity: Self.pendingCapacity, width: crop.width, height: crop.height))
    }

    /// Every picture since the last call, oldest first, into `pictures` (empty when none came);
    /// keep the array from call to call and nothing is allocated.
    func takeAll(into pictures: inout [Picture]) { pending.withLock { $0.takeAll(into: &pictures) } }

    /// Why the stream ended (error, node gone), or nil while it runs.
    var endReason: String? { ended.withLock { $0 } }

    /// Whether the stream has reached PipeWire's streaming state (linked to the compositor's
    /// node, format agreed, buffers flowing whenever the compositor has a picture) at least once.
    var hasStreamed: Bool { streaming.load(ordering: .acquiring) }

    /// PipeWire's thread: a stream event.
    func event(_ kind: Int32, _ message: String) {
        if kind == Int32(RK_PW_EVENT_STREAMING) { streaming.store(true, ordering: .releasing) }
        guard kind == Int32(RK_PW_EVENT_ERROR) || kind == Int32(RK_PW_EVENT_GONE) else { return }
        ended.withLock { if $0 == nil { $0 = message } }
    }

    /// PipeWire's thread: one buffer, valid only during this call.
    func receive(_ frame: UnsafePointer<rk_pw_frame>) {
        let f = frame.pointee
        guard let data = f.data, let slot = pool.acquire() else {
            counters.update { $0.droppedPoolExhausted += 1 }
            return
        }
        let rowBytes = crop.width * 4
        let destination = pool.address(ofSlot: slot)
        let stride = Int(f.stride)
        // The stream may shrink (the monitor's mode changed): copy what exists, black elsewhere.
        let columns = max(0, min(crop.width, Int(f.width) - crop.x))
        let rows = max(0, min(crop.height, Int(f.height) - crop.y))
        if columns < crop.width || rows < crop.height { memset(destination, 0, rowBytes * crop.height) }
        let source = data + crop.y * stride + crop.x * 4
        for row in 0..<rows {
            memcpy(destination + row * rowBytes, source + row * stride, columns * 4)
        }
        if f.format == UInt32(RK_PW_RGBX) || f.format == UInt32(RK_PW_RGBA) {
            let pixels = destination.bindMemory(to: UInt32.self, capacity: crop.width * crop.height)
            for i in 0..<(crop.width * crop.height) {
                let v = pixels[i]
                pixels[i] = (v & 0xFF00_FF00) | ((v & 0xFF) << 16) | ((v >> 16) & 0xFF)
            }
        }
        let dirty = dirtyRects(f)
        let picture = Picture(picture: pool.buffer(slot: slot, byteCount: rowBytes * crop.height),
                              captureNs: UInt64(max(f.capture_ns, 0)), dirtyRects: dirty)
        let damaged = dirty.map { $0.reduce(0) { $0 + $1.width * $1.height } } ?? crop.width * crop.height
        // A picture dropped here (the pacing thread is far behind) goes back to the pool.
        let dropped = pending.withLock { $0.append(picture) }
        counters.update {
            $0.droppedBehind += Int64(dropped)
            $0.grabs += 1
            $0.grabbedPixels += Int64(crop.width * crop.height)
            $0.damagedPixels += Int64(damaged)
        }
    }

    /// The frame's damage regions in output coordinates, clipped and even-aligned; nil when unknown.
    private func dirtyRects(_ f: rk_pw_frame) -> [PixelRect]? {
        guard f.damage_valid != 0 else { return nil }
        var rects: [PixelRect] = []
        withUnsafeBytes(of: f.damage) { raw in
            let regions = raw.bindMemory(to: rk_pw_rect.self)
            for i in 0..<min(Int(f.damage_count), regions.count) {
                let (rx, ry, rw, rh) = (regions[i].x, regions[i].y, regions[i].width, regions[i].height)
                let x0 = max(Int(rx) - crop.x, 0) & ~1, y0 = max(Int(ry) - crop.y, 0) & ~1
                let x1 = min(Int(rx) + Int(rw) - crop.x, crop.width), y1 = min(Int(ry) + Int(rh) - crop.y, crop.height)
                let w = min((x1 - x0 + 1) & ~1, crop.width - x0), h = min((y1 - y0 + 1) & ~1, crop.height - y0)
                if w > 0 && h > 0 { rects.append(PixelRect(x: x0, y: y0, width: w, height: h)) }
            }
        }
        return rects.isEmpty ? nil : rects
    }
}
