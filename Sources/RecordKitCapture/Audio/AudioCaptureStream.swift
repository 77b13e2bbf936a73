/// One PulseAudio record stream opened by ``PulseAudioConnection/openStream(_:name:deliver:)``.
///
/// The stream records until ``stop()``, until its connection is closed, or until the object goes
/// away (which stops it too). It never outlives its connection's server: when the server is lost,
/// deliveries simply end and the connection's ``PulseAudioConnection/onDisconnect`` reports why.
public final class AudioCaptureStream: @unchecked Sendable {
    /// The PulseAudio name of the source actually recorded, after resolving defaults
    /// (for ``AudioSourceSelector/defaultSinkMonitor``, e.g. `"alsa_output.pci.analog-stereo.monitor"`).
    public let sourceName: String
    private let reader: AudioStreamReader

    init(sourceName: String, reader: AudioStreamReader) {
        self.sourceName = sourceName
        self.reader = reader
    }

    /// Stops recording and releases the server-side stream. Idempotent and callable from any
    /// thread, including from inside the `deliver` closure. When it returns, `deliver` is never
    /// called again, and no call of it is still running on another thread.
    public func stop() { reader.stop() }

    deinit { reader.stop() }
}
