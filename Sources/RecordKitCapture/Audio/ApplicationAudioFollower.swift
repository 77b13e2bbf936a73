import CPulse
import RecordKitSupport

/// Records one application's sound: a monitor record stream (`pa_stream_set_monitor_stream`)
/// on each of its sink inputs, opened as they appear (a subscription to sink-input events) and
/// closed as they go, so a stream the application restarts mid-recording comes back.
///
/// Every open stream is heard: a ``StreamSummer`` adds them up on their capture times (an
/// application playing two streams at once, a browser with two tabs, is recorded whole). While
/// the application plays nothing, nothing is delivered and the recorder fills silence. Streams are opened asynchronously on the PulseAudio thread (the server
/// connects each monitor to its sink input's sink).
///
/// Threading: everything but ``start()`` runs on the connection's PulseAudio thread, or with its
/// loop lock held (``stop()``), hence `@unchecked Sendable`. One follower per connection: it owns
/// the context's subscription callback.
final class ApplicationAudioFollower: @unchecked Sendable {
    private let loop: PulseMainloop
    private let context: OpaquePointer
    private let selector: ApplicationSelector
    private let name: String
    private let deliver: AudioStreamReader.Deliver
    /// Sink input index → its monitor reader, in opening order (newest last). Lock held.
    private var readers: [(index: UInt32, reader: AudioStreamReader)] = []
    private var pendingInfo = Set<UInt32>()
    /// Adds the streams up (loop thread).
    private let summer: StreamSummer
    private var stopped = false
    /// Set once the initial sink-input list was processed (lock held).
    private(set) var listed = false

    /// Prepares to follow `selector` on `context` (referenced until ``stop()``). Loop lock held.
    init(loop: PulseMainloop, context: OpaquePointer, selector: ApplicationSelector, name: String,
         deliver: @escaping AudioStreamReader.Deliver) {
        self.loop = loop
        self.context = context
        self.selector = selector
        self.name = name
        self.deliver = deliver
        self.summer = StreamSummer(output: deliver)
        pa_context_ref(context)
    }

    /// Subscribes to sink-input events and asks for the current list. Loop lock held, off the
    /// loop thread; returns the list operation for the caller to wait on (or nil if refused).
    func start() -> OpaquePointer? {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_subscribe_callback(context, { _, event, index, userdata in
            guard let userdata else { return }
            Unmanaged<ApplicationAudioFollower>.fromOpaque(userdata).takeUnretainedValue().handle(event: event, index: index)
        }, userdata)
        if let op = pa_context_subscribe(context, pa_subscription_mask_t(rawValue: PA_SUBSCRIPTION_MASK_SINK_INPUT.rawValue), nil, nil) {
            pa_operation_unref(op)
        }
        return pa_context_get_sink_input_info_list(context, { _, info, eol, userdata in
            guard let userdata else { return }
            let follower = Unmanaged<ApplicationAudioFollower>.fromOpaque(userdata).takeUnretainedValue()
            if eol != 0 { follower.listed = true; follower.loop.signal(); return }
            if let info { follower.consider(info.pointee) }
        }, userdata)
    }

    /// Number of the application's streams being recorded now. Lock held.
    var streamCount: Int { readers.count }

    /// Stops every stream and the subscription. Idempotent; any thread (takes the loop lock).
    func stop() {
        let open: [AudioStreamReader] = loop.withLock {
            guard !stopped else { return [] }
            stopped = true
            pa_context_set_subscribe_callback(context, nil, nil)
            pa_context_unref(context)
            defer { readers.removeAll() }
            return readers.map(\.reader)
        }
        for reader in open { reader.stop() }
    }

    // MARK: - On the loop thread

    private func handle(event: pa_subscription_event_type_t, index: UInt32) {
        guard !stopped else { return }
        let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
        let type = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
        guard facility == PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue else { return }
        if type == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue {
            if let position = readers.firstIndex(where: { $0.index == index }) {
                let reader = readers.remove(at: position).reader
                reader.stop()
                summer.streamEnded(index, nowNs: MonotonicClock.nanoseconds())
            }
            return
        }
        guard type == PA_SUBSCRIPTION_EVENT_NEW.rawValue, !pendingInfo.contains(index),
              !readers.contains(where: { $0.index == index }) else { return }
        pendingInfo.insert(index)
        let op = pa_context_get_sink_input_info(context, index, { _, info, eol, userdata in
            guard let userdata, eol == 0, let info else { return }
            let follower = Unmanaged<ApplicationAudioFollower>.fromOpaque(userdata).takeUnretainedValue()
            follower.pendingInfo.remove(info.pointee.index)
            follower.consider(info.pointee)
        }, Unmanaged.passUnretained(self).toOpaque())
        if let op { pa_operation_unref(op) }
    }

    /// Opens a monitor stream on `info` if it belongs to the application and is not followed yet.
    private func consider(_ info: pa_sink_input_info) {
        guard !stopped, !readers.contains(where: { $0.index == info.index }) else { return }
        let appName = info.proplist.flatMap { pa_proplist_gets($0, "application.name") }.map { String(cString: $0) }
        let pid = info.proplist.flatMap { pa_proplist_gets($0, "application.process.id") }.flatMap { Int(String(cString: $0)) }
        guard selector.matches(name: appName, pid: pid) else { return }
        var spec = AudioStreamReader.sampleSpec
        var channels = pa_channel_map()
        pa_channel_map_init_stereo(&channels)
        guard let stream = pa_stream_new(context, name, &spec, &channels) else { return }
        let index = info.index
        let reader = AudioStreamReader(loop: loop, stream: stream) { [weak self] samples, frames, time in
            // Callbacks run on the loop thread, lock held.
            guard let self, !self.stopped else { return }
            self.summer.deliver(stream: index, samples: samples, frameCount: frames, captureTimeNs: time, nowNs: MonotonicClock.nanoseconds())
        }
        guard pa_stream_set_monitor_stream(stream, index) == 0 else { reader.stop(); return }
        let fragment = UInt32(pa_usec_to_bytes(10_000, &spec))
        var attr = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max,
                                  minreq: UInt32.max, fragsize: fragment)
        let flags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue
            | PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue)
        // No device: the server records from the monitor of the sink the input plays to.
        guard pa_stream_connect_record(stream, nil, &attr, flags) == 0 else { reader.stop(); return }
        readers.append((index, reader))
        summer.expectStream(index, nowNs: MonotonicClock.nanoseconds())
    }
}
