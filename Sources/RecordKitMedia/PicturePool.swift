import CFFmpeg
import RecordKitSupport

/// The yuv420p pictures of one video encoder's `convert` side: an FFmpeg buffer pool that is
/// replaced by a fresh one every `lifetime` seconds.
///
/// An `AVBufferPool` keeps every buffer it ever handed out until the pool itself goes, so a
/// burst of pictures in flight stays resident for the rest of the recording: in the soak
/// benchmark (docs/BENCHMARKS.md, "Memory over time") one load spike left 11 extra 1080p
/// pictures (34 MB) in the pool for good, the whole of the memory held after the first minute.
/// A replaced pool frees itself when its last picture comes back; the new one allocates only
/// what is in flight now (a few pictures every 30 s: page faults, no copy).
///
/// Not thread-safe: used from the encoder's convert side only.
final class PicturePool {
    private var pool: OpaquePointer
    private let bufferSize: Int
    private let lifetime: Double
    private var renewedAt: Double

    /// A pool of pictures of `width` × `height` (FFmpeg's 64-byte aligned planes), nil when
    /// FFmpeg cannot allocate the pool.
    init?(width: Int, height: Int, lifetime: Double = 30) {
        bufferSize = shim_yuv420p_pool_size(Int32(width), Int32(height))
        guard let pool = av_buffer_pool_init(bufferSize, nil) else { return nil }
        self.pool = pool
        self.lifetime = lifetime
        renewedAt = MonotonicClock.seconds()
    }

    /// Gives `frame` (format, width and height set) a picture buffer: 0, or a negative AVERROR.
    func attachBuffer(to frame: UnsafeMutablePointer<AVFrame>) -> Int32 {
        renewIfDue()
        return shim_yuv420p_frame_from_pool(frame, pool)
    }

    private func renewIfDue() {
        let now = MonotonicClock.seconds()
        guard now - renewedAt >= lifetime else { return }
        renewedAt = now
        guard let fresh = av_buffer_pool_init(bufferSize, nil) else { return }  // keep the old one
        var old: OpaquePointer? = pool
        av_buffer_pool_uninit(&old)  // freed once its last picture comes back
        pool = fresh
    }

    deinit {
        var old: OpaquePointer? = pool
        av_buffer_pool_uninit(&old)  // pictures still out keep the pool's memory until they go
    }
}
