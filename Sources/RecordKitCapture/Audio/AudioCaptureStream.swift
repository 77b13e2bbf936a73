/// One PulseAudio record stream opened by ``PulseAudioConnection/openStream(_:name:deliver:)``.
///
/// The stream records until ``stop()``, until its connection is closed, or until the object goes
/// away (which stops it too). It never outlives its connection's server: when the server is lost,
/// deliveries simply end and the connection's ``PulseAudioConnection/onDisconnect`` reports why.
package final class AudioCaptureStream: @unchecked Sendable {
    /// The PulseAudio name of the source actually recorded, after resolving defaults
    /// (for ``AudioSourceSelector/defaultSinkMonitor``, e.g. `"alsa_output.pci.analog-stereo.monitor"`).
    /// For ``AudioSourceSelector/application(_:)``: `application 'NAME'` or `process PID`.
    package let sourceName: String
    private let reader: AudioStreamReader?
    private let follower: ApplicationAudioFollower?

    init(sourceName: String, reader: AudioStreamReader) {
        self.sourceName = sourceName
        self.reader = reader
        self.follower = nil
    }

    /// A stream that follows one application's sink inputs.
    init(sourceName: String, follower: ApplicationAudioFollower) {
        self.sourceName = sourceName
        self.reader = nil
        self.follower = follower
    }

    /// Stops recording and releases the server-side stream(s). Idempotent and callable from any
    /// thread, including from inside the `deliver` closure. When it returns, `deliver` is never
    /// called again, and no call of it is still running on another thread.
    package func stop() {
        reader?.stop()
        follower?.stop()
    }

    deinit { stop() }
}
