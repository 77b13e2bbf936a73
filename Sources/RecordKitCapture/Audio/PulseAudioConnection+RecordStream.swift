import CPulse
import Foundation

/// Record streams on the connection: the source resolved against the server's defaults, the
/// stream created, connected and waited for until it records.
extension PulseAudioConnection {
    /// Opens a record stream on `source` and starts delivering its audio.
    ///
    /// The stream records 32-bit float, 48 kHz, stereo (the server converts from whatever the
    /// source has) in fragments of about 10 ms, with latency adjustment and interpolated,
    /// automatically updated timing.
    ///
    /// - Parameters:
    ///   - source: which source to record; defaults are resolved now, against the server's
    ///     current defaults.
    ///   - name: the stream's name on the server (`pactl list source-outputs`).
    ///   - deliver: called on the connection's PulseAudio thread for every chunk, one call at a
    ///     time, with interleaved L,R samples valid only during the call, the number of frames,
    ///     and the CLOCK_MONOTONIC time in nanoseconds at which the chunk's first frame was
    ///     captured (now minus the stream latency that Pulse reports, i.e. the age of the oldest
    ///     unread data). For a sink monitor that latency can be negative (the sink has not played
    ///     the audio yet), so the time can lie a few ms after now. Times strictly increase from
    ///     chunk to chunk. Chunks the server dropped (holes) are skipped, not delivered; the
    ///     next chunk's time shows the gap.
    ///
    /// Blocks for at most about twice the connection's timeout. Must not be called from inside a
    /// `deliver` closure (the PulseAudio thread cannot wait for itself).
    /// - Returns: the running stream.
    /// - Throws: ``CaptureError`` `.audioSourceNotFound` naming the source when it does not exist
    ///   (the message lists the sources that do); `.noAudioServer` when the connection is gone;
    ///   `.audioError` when the server refuses the stream or does not answer in time.
    package func openStream(
        _ source: AudioSourceSelector, name: String,
        deliver: @escaping @Sendable (_ samples: UnsafeBufferPointer<Float>, _ frameCount: Int, _ captureTimeNs: UInt64) -> Void
    ) throws(CaptureError) -> AudioCaptureStream {
        precondition(!loop.isLoopThread, "openStream must not be called from a PulseAudio callback")
        if case .application(let app) = source { return try openApplicationStream(app, name: name, deliver: deliver) }  // one app's audio
        let stream = try loop.withLock { () throws(CaptureError) -> AudioCaptureStream in
            guard let context, monitor.phase == .ready else { throw notConnected("open stream '\(name)'") }
            pa_context_ref(context)
            defer { pa_context_unref(context) }
            let query = PulseQuery(loop: loop, context: context, monitor: monitor, timeoutUs: timeoutUs)
            let sourceName = try resolve(source, query)
            guard try query.sourceExists(sourceName) else {
                let known = (try? query.sourceNames())?.joined(separator: ", ") ?? "unknown"
                throw CaptureError(.audioSourceNotFound, "PulseAudio source '\(sourceName)' does not exist on \(monitor.serverDescription) "
                    + "(available sources: \(known))")
            }
            let reader = try connectRecord(context, sourceName: sourceName, name: name, deliver: deliver)
            return AudioCaptureStream(sourceName: sourceName, reader: reader)
        }
        return stream
    }

    /// The concrete source name for `source`. Loop lock held.
    func resolve(_ source: AudioSourceSelector, _ query: PulseQuery) throws(CaptureError) -> String {
        switch source {
        case .source(let name):
            return name
        case .sinkMonitor(let sink):
            return sink + ".monitor"
        case .defaultSinkMonitor:
            guard let sink = try query.serverDefaults().sink, !sink.isEmpty else {
                throw CaptureError(.audioSourceNotFound, "PulseAudio server \(monitor.serverDescription) has no default sink, "
                    + "so there is no default sink monitor to record app audio from")
            }
            return sink + ".monitor"
        case .application(let app):
            throw CaptureError(.audioError, "\(app) has no single source; it is recorded through its sink inputs")
        case .defaultSource:
            guard let name = try query.serverDefaults().source, !name.isEmpty else {
                throw CaptureError(.audioSourceNotFound, "PulseAudio server \(monitor.serverDescription) has no default source "
                    + "(no microphone?)")
            }
            return name
        }
    }

    /// Creates and connects the record stream and waits until it is READY. Loop lock held.
    func connectRecord(_ context: OpaquePointer, sourceName: String, name: String,
                               deliver: @escaping AudioStreamReader.Deliver) throws(CaptureError) -> AudioStreamReader {
        var spec = AudioStreamReader.sampleSpec
        var channels = pa_channel_map()
        pa_channel_map_init_stereo(&channels)
        guard let stream = pa_stream_new(context, name, &spec, &channels) else {
            throw CaptureError(.audioError, "pa_stream_new for '\(sourceName)' failed: "
                + String(cString: pa_strerror(pa_context_errno(context))))
        }
        let reader = AudioStreamReader(loop: loop, stream: stream, deliver: deliver)
        let fragment = UInt32(pa_usec_to_bytes(10_000, &spec))  // ≈ 10 ms
        var attr = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max,
                                  minreq: UInt32.max, fragsize: fragment)
        let flags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue
            | PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue)
        guard pa_stream_connect_record(stream, sourceName, &attr, flags) == 0 else {
            let why = String(cString: pa_strerror(pa_context_errno(context)))
            reader.stop()
            throw CaptureError(.audioError, "cannot record from PulseAudio source '\(sourceName)': \(why)")
        }
        let settled = loop.wait(context: context, timeoutUs: timeoutUs) {
            let state = pa_stream_get_state(stream)
            return state != PA_STREAM_CREATING && state != PA_STREAM_UNCONNECTED || monitor.phase != .ready
        }
        let state = pa_stream_get_state(stream)
        if state == PA_STREAM_READY, monitor.phase == .ready {
            readers.withLock { list in
                list.removeAll { $0.reader?.isStopped ?? true }
                list.append(WeakReader(reader: reader))
            }
            return reader
        }
        let code = pa_context_errno(context)
        reader.stop()
        if monitor.phase != .ready { throw notConnected("open stream '\(name)' on '\(sourceName)'") }
        if !settled {
            throw CaptureError(.audioError, "PulseAudio source '\(sourceName)' did not start within "
                + "\(Double(timeoutUs) / 1e6) s")
        }
        if code == Int32(PA_ERR_NOENTITY.rawValue) {
            throw CaptureError(.audioSourceNotFound, "PulseAudio source '\(sourceName)' does not exist on "
                + "\(monitor.serverDescription)")
        }
        throw CaptureError(.audioError, "PulseAudio refused to record from '\(sourceName)': "
            + String(cString: pa_strerror(code)))
    }
}
