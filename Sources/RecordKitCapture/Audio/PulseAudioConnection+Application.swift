import CPulse

extension PulseAudioConnection {
    /// Opens the stream for ``AudioSourceSelector/application(_:)``: follows that application's
    /// sink inputs (see ``ApplicationAudioFollower``). Succeeds while the application plays
    /// nothing (the track is then silent until it does). Off the loop thread.
    func openApplicationStream(
        _ app: ApplicationSelector, name: String,
        deliver: @escaping @Sendable (_ samples: UnsafeBufferPointer<Float>, _ frameCount: Int, _ captureTimeNs: UInt64) -> Void
    ) throws(CaptureError) -> AudioCaptureStream {
        let loop = pulseLoop
        let monitor = pulseMonitor
        let timeoutUs = pulseTimeoutUs
        return try loop.withLock { () throws(CaptureError) -> AudioCaptureStream in
            guard let context = pulseContext, monitor.phase == .ready else {
                throw CaptureError(.noAudioServer, "cannot record \(app): the PulseAudio connection to \(monitor.serverDescription) is closed")
            }
            let follower = ApplicationAudioFollower(loop: loop, context: context, selector: app, name: name, deliver: deliver)
            guard let op = follower.start() else {
                follower.stop()
                throw CaptureError(.audioError, "PulseAudio server \(monitor.serverDescription) refused to list sink inputs: "
                    + String(cString: pa_strerror(pa_context_errno(context))))
            }
            defer { pa_operation_unref(op) }
            let done = loop.wait(context: context, timeoutUs: timeoutUs) { follower.listed || monitor.phase != .ready }
            guard done, monitor.phase == .ready else {
                pa_operation_cancel(op)
                follower.stop()
                throw CaptureError(.audioError, "PulseAudio server \(monitor.serverDescription) did not list its sink inputs in time")
            }
            return AudioCaptureStream(sourceName: app.description, follower: follower)
        }
    }
}
