import CPulse

/// Lists sink inputs, sinks and sources of a connection, synchronously (the pattern of
/// ``PulseQuery``: loop lock held, off the loop thread; this object is the callbacks' userdata
/// and outlives the waits).
final class PulseInventoryQuery {
    private let loop: PulseMainloop
    private let context: OpaquePointer
    private var inventory = AudioInventory()
    private var sinkNames: [UInt32: String] = [:]
    private var sinkInputSinks: [UInt32] = []
    private var done = false

    init(loop: PulseMainloop, context: OpaquePointer) {
        self.loop = loop
        self.context = context
    }

    /// Runs the three listings; throws `.audioError` when one does not finish within `timeoutUs`.
    func run(timeoutUs: UInt64) throws(CaptureError) -> AudioInventory {
        let me = Unmanaged.passUnretained(self).toOpaque()
        try complete(pa_context_get_sink_info_list(context, { _, info, eol, userdata in
            guard let userdata else { return }
            let query = Unmanaged<PulseInventoryQuery>.fromOpaque(userdata).takeUnretainedValue()
            if eol != 0 { query.finish(); return }
            if let info, let name = info.pointee.name {
                query.inventory.sinks.append(String(cString: name))
                query.sinkNames[info.pointee.index] = String(cString: name)
            }
        }, me), "listing sinks", timeoutUs)
        try complete(pa_context_get_source_info_list(context, { _, info, eol, userdata in
            guard let userdata else { return }
            let query = Unmanaged<PulseInventoryQuery>.fromOpaque(userdata).takeUnretainedValue()
            if eol != 0 { query.finish(); return }
            if let info, let name = info.pointee.name { query.inventory.sources.append(String(cString: name)) }
        }, me), "listing sources", timeoutUs)
        try complete(pa_context_get_sink_input_info_list(context, { _, info, eol, userdata in
            guard let userdata else { return }
            let query = Unmanaged<PulseInventoryQuery>.fromOpaque(userdata).takeUnretainedValue()
            if eol != 0 { query.finish(); return }
            guard let info else { return }
            let property = { (key: String) -> String? in
                info.pointee.proplist.flatMap { pa_proplist_gets($0, key) }.map { String(cString: $0) }
            }
            query.inventory.applications.append(AudioInventory.Application(
                name: property("application.name"), pid: property("application.process.id").flatMap { Int($0) },
                sinkInput: Int(info.pointee.index), sink: query.sinkNames[info.pointee.sink],
                streamName: property("media.name") ?? info.pointee.name.map { String(cString: $0) }))
        }, me), "listing sink inputs", timeoutUs)
        return inventory
    }

    private func finish() {
        done = true
        loop.signal()
    }

    private func complete(_ op: OpaquePointer?, _ what: String, _ timeoutUs: UInt64) throws(CaptureError) {
        guard let op else {
            throw CaptureError(.audioError, "PulseAudio: \(what) failed: " + String(cString: pa_strerror(pa_context_errno(context))))
        }
        defer { pa_operation_unref(op) }
        done = false
        let finished = loop.wait(context: context, timeoutUs: timeoutUs) {
            done || pa_operation_get_state(op) != PA_OPERATION_RUNNING
        }
        if !finished {
            pa_operation_cancel(op)
            throw CaptureError(.audioError, "PulseAudio did not answer in time while \(what)")
        }
    }
}

extension PulseAudioConnection {
    /// The applications playing now (one entry per sink input), the sinks and the sources.
    /// Blocks up to the connection's timeout per listing; not from a PulseAudio callback.
    /// - Throws: ``CaptureError`` `.noAudioServer` when the connection is gone, `.audioError` on a timeout.
    package func inventory() throws(CaptureError) -> AudioInventory {
        let loop = pulseLoop
        return try loop.withLock { () throws(CaptureError) -> AudioInventory in
            guard let context = pulseContext, pulseMonitor.phase == .ready else {
                throw CaptureError(.noAudioServer, "the PulseAudio connection to \(pulseMonitor.serverDescription) is closed")
            }
            pa_context_ref(context)
            defer { pa_context_unref(context) }
            return try PulseInventoryQuery(loop: loop, context: context).run(timeoutUs: pulseTimeoutUs)
        }
    }
}
