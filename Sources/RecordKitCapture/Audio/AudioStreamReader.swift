import CPulse
import RecordKitSupport

/// The live half of an ``AudioCaptureStream``: one `pa_stream` record stream and its callbacks.
///
/// Threading: every field is touched only with the loop lock held or on the loop thread (where
/// libpulse holds the lock while it runs callbacks); there is no other synchronisation. The
/// object is the stream callbacks' userdata. Its owners (the public stream, the connection's
/// registry) clear those callbacks in ``stop()`` before letting it go.
final class AudioStreamReader: @unchecked Sendable {
    /// Receives each chunk; see ``PulseAudioConnection/openStream(_:name:deliver:)``.
    typealias Deliver = @Sendable (_ samples: UnsafeBufferPointer<Float>, _ frameCount: Int, _ captureTimeNs: UInt64) -> Void

    /// The recorded format: FLOAT32NE, 48 kHz, 2 channels. Pulse converts whatever the source has.
    static let sampleSpec = pa_sample_spec(format: shim_pa_sample_float32ne(), rate: 48_000, channels: 2)
    /// Bytes per frame of ``sampleSpec``.
    static let bytesPerFrame = 8

    private let loop: PulseMainloop
    private let deliver: Deliver
    private var stream: OpaquePointer?
    private var stopped = false
    /// Capture time of the last delivered chunk (loop thread only).
    private var lastCaptureTime: UInt64 = 0
    /// Scratch for chunks whose address is not `Float`-aligned (libpulse never produced one here).
    private var scratch: [Float] = []

    /// Wraps `stream` (a new, unconnected `pa_stream`, whose reference it takes over) and
    /// installs its state and read callbacks. Loop lock held.
    init(loop: PulseMainloop, stream: OpaquePointer, deliver: @escaping Deliver) {
        self.loop = loop
        self.stream = stream
        self.deliver = deliver
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_state_callback(stream, { _, userdata in
            guard let userdata else { return }
            Unmanaged<AudioStreamReader>.fromOpaque(userdata).takeUnretainedValue().loop.signal()
        }, userdata)
        pa_stream_set_read_callback(stream, { stream, _, userdata in
            guard let stream, let userdata else { return }
            Unmanaged<AudioStreamReader>.fromOpaque(userdata).takeUnretainedValue().drain(stream)
        }, userdata)
    }

    /// Stops recording: removes the callbacks, disconnects and releases the stream. Idempotent,
    /// callable from any thread, including from inside `deliver`. Once it returns, `deliver` is
    /// not called again (a call in progress on another thread has finished, since callbacks run
    /// with the loop lock held, which this takes).
    func stop() {
        loop.withLock {
            guard !stopped else { return }
            stopped = true
            if let stream {
                pa_stream_set_read_callback(stream, nil, nil)
                pa_stream_set_state_callback(stream, nil, nil)
                if pa_stream_get_state(stream) == PA_STREAM_READY || pa_stream_get_state(stream) == PA_STREAM_CREATING {
                    pa_stream_disconnect(stream)
                }
                pa_stream_unref(stream)
                self.stream = nil
            }
        }
    }

    /// Whether ``stop()`` has run. Loop lock held.
    var isStopped: Bool { stopped }

    /// Reads every complete chunk that is readable. On the loop thread, lock held.
    private func drain(_ stream: OpaquePointer) {
        // `deliver` may call stop(), which releases our reference: keep the stream alive here.
        pa_stream_ref(stream)
        defer { pa_stream_unref(stream) }
        while !stopped {
            var data: UnsafeRawPointer?
            var nbytes = 0
            guard pa_stream_peek(stream, &data, &nbytes) == 0, nbytes > 0 else { return }
            if let data {
                // Interpolated latency jitters by a few ms; a chunk of a few frames could then
                // seem to start before the previous one. Keep the times strictly increasing.
                let captureTime = max(Self.firstFrameTime(of: stream), lastCaptureTime &+ 1)
                lastCaptureTime = captureTime
                let frames = nbytes / Self.bytesPerFrame
                if frames > 0 { hand(data, frames: frames, captureTime: captureTime) }
                if stopped { return }
            }
            // data == nil with nbytes > 0 is a hole (the server dropped data): skip it; the
            // assembler places the next chunk by its time and fills the gap with silence.
            pa_stream_drop(stream)
        }
    }

    private func hand(_ data: UnsafeRawPointer, frames: Int, captureTime: UInt64) {
        let count = frames * 2
        if Int(bitPattern: data) % MemoryLayout<Float>.alignment == 0 {
            let samples = UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: count)
            deliver(samples, frames, captureTime)
        } else {
            if scratch.count < count { scratch = [Float](repeating: 0, count: count) }
            scratch.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: data, count: count * 4)) }
            scratch.withUnsafeBufferPointer { deliver(UnsafeBufferPointer(rebasing: $0[0..<count]), frames, captureTime) }
        }
    }

    /// CLOCK_MONOTONIC time of the first frame of the chunk at the read index: now minus the
    /// stream's latency (`pa_stream_get_latency`), which for a record stream is the age of the
    /// oldest unread data: source latency plus transport plus what waits in our buffer.
    ///
    /// For a sink *monitor* libpulse subtracts the sink's latency (the monitor sees audio before
    /// the sink plays it), so the latency can be negative: the first frame will be heard in the
    /// future, and its time is later than now. The sign is honoured, not clamped: clamping or
    /// ignoring it would shift app audio early against the video.
    ///
    /// Before the first timing update libpulse knows no latency; then the duration of the
    /// readable data is the best estimate of the oldest frame's age.
    private static func firstFrameTime(of stream: OpaquePointer) -> UInt64 {
        let now = MonotonicClock.nanoseconds()
        var usec: pa_usec_t = 0
        var negative: Int32 = 0
        if pa_stream_get_latency(stream, &usec, &negative) == 0 {
            let latencyNs = usec &* 1000
            return negative != 0 ? now &+ latencyNs : now - min(latencyNs, now)
        }
        let readable = pa_stream_readable_size(stream)
        guard readable > 0 else { return now }  // (size_t)-1 (an error) imports as -1
        var spec = sampleSpec
        let latencyNs = pa_bytes_to_usec(UInt64(readable), &spec) * 1000
        return now - min(latencyNs, now)
    }

    /// The `pa_stream *`, while not stopped. Loop lock held.
    var pulseStream: OpaquePointer? { stream }
}
