import CPulse

/// Synchronous introspection on an asynchronous `pa_context`: server defaults and sources.
///
/// Every method is called with the loop lock held, off the loop thread, and blocks (releasing the
/// lock while it waits) until libpulse answers, the timeout passes, or the connection ends.
/// An instance is the operation's userdata; it lives on the caller's stack for the whole wait,
/// and a timed-out operation is cancelled before it goes, so callbacks never see a dead object.
final class PulseQuery {
    private let loop: PulseMainloop
    private let context: OpaquePointer
    private let monitor: PulseContextMonitor
    private let timeoutUs: UInt64

    // Results, written by the callbacks on the loop thread with the lock held.
    private var defaultSink: String?
    private var defaultSource: String?
    private var found = false
    private var names: [String] = []

    /// Prepares queries on `context`, which the caller keeps referenced while they run.
    init(loop: PulseMainloop, context: OpaquePointer, monitor: PulseContextMonitor, timeoutUs: UInt64) {
        self.loop = loop
        self.context = context
        self.monitor = monitor
        self.timeoutUs = timeoutUs
    }

    /// The server's default sink and source names (`pa_context_get_server_info`).
    func serverDefaults() throws(CaptureError) -> (sink: String?, source: String?) {
        let op = pa_context_get_server_info(context, { _, info, userdata in
            guard let userdata else { return }
            let query = Unmanaged<PulseQuery>.fromOpaque(userdata).takeUnretainedValue()
            if let info {
                query.defaultSink = info.pointee.default_sink_name.map { String(cString: $0) }
                query.defaultSource = info.pointee.default_source_name.map { String(cString: $0) }
            }
            query.loop.signal()
        }, Unmanaged.passUnretained(self).toOpaque())
        try complete(op, "reading the server's defaults")
        return (defaultSink, defaultSource)
    }

    /// Whether a source with exactly this name exists (`pa_context_get_source_info_by_name`).
    func sourceExists(_ name: String) throws(CaptureError) -> Bool {
        found = false
        let op = pa_context_get_source_info_by_name(context, name, { _, info, eol, userdata in
            guard let userdata else { return }
            let query = Unmanaged<PulseQuery>.fromOpaque(userdata).takeUnretainedValue()
            if eol == 0, info != nil { query.found = true }
            query.loop.signal()
        }, Unmanaged.passUnretained(self).toOpaque())
        try complete(op, "looking up source '\(name)'", failureIsAnswer: true)
        return found
    }

    /// The names of every source, monitors included (`pa_context_get_source_info_list`).
    func sourceNames() throws(CaptureError) -> [String] {
        names = []
        let op = pa_context_get_source_info_list(context, { _, info, eol, userdata in
            guard let userdata else { return }
            let query = Unmanaged<PulseQuery>.fromOpaque(userdata).takeUnretainedValue()
            if eol == 0, let info, let name = info.pointee.name { query.names.append(String(cString: name)) }
            query.loop.signal()
        }, Unmanaged.passUnretained(self).toOpaque())
        try complete(op, "listing sources")
        return names
    }

    /// Waits for `op` to finish. A lookup of a missing object fails on the server
    /// (PA_ERR_NOENTITY) yet has still answered: `failureIsAnswer` accepts that.
    private func complete(_ op: OpaquePointer?, _ what: String, failureIsAnswer: Bool = false) throws(CaptureError) {
        guard let op else {
            throw CaptureError(.audioError, "PulseAudio server \(monitor.serverDescription): \(what) failed: "
                + String(cString: pa_strerror(pa_context_errno(context))))
        }
        defer { pa_operation_unref(op) }
        _ = loop.wait(context: context, timeoutUs: timeoutUs) {
            pa_operation_get_state(op) != PA_OPERATION_RUNNING || monitor.phase != .ready
        }
        let state = pa_operation_get_state(op)
        if state == PA_OPERATION_RUNNING {
            pa_operation_cancel(op)
            if monitor.phase != .ready { throw disconnected(what) }
            throw CaptureError(.audioError, "PulseAudio server \(monitor.serverDescription) did not answer within "
                + "\(Double(timeoutUs) / 1e6) s while \(what)")
        }
        if state == PA_OPERATION_CANCELLED, !failureIsAnswer { throw disconnected(what) }
    }

    private func disconnected(_ what: String) -> CaptureError {
        switch monitor.phase {
        case .closed:
            return CaptureError(.audioError, "the PulseAudio connection was closed while \(what)")
        case .failed(let why):
            return CaptureError(.noAudioServer, "lost the PulseAudio server \(monitor.serverDescription) while \(what): \(why)")
        case .connecting, .ready:
            return CaptureError(.audioError, "PulseAudio operation cancelled while \(what)")
        }
    }
}
