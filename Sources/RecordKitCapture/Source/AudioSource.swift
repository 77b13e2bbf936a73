import RecordKit

/// Where an audio source hands captured audio: `frameCount` frames of interleaved stereo float
/// samples of `track`, the first captured at `captureNs` (`CLOCK_MONOTONIC`). Called on the
/// source's own thread, one chunk at a time per track; the samples are valid only during the call.
package typealias AudioChunkSink = @Sendable (_ track: SampleBufferType, _ samples: UnsafeBufferPointer<Float>,
                                              _ frameCount: Int, _ captureNs: UInt64) -> Void

/// What a recording asks of its audio source: which tracks from where.
package struct AudioSourceRequest: Sendable {
    /// One entry per track (`audioApp`, `audioMic`), in order.
    package var tracks: [(type: SampleBufferType, selector: AudioSourceSelector)]
    /// The audio server, or nil for the default.
    package var server: String?
    /// Whether a missing server or source is an error (otherwise fewer tracks and a warning).
    package var requireAudio: Bool

    /// Creates a request.
    package init(tracks: [(type: SampleBufferType, selector: AudioSourceSelector)], server: String?, requireAudio: Bool) {
        self.tracks = tracks
        self.server = server
        self.requireAudio = requireAudio
    }
}

/// The audio side of a recording, from ``AudioSourceRegistry``: PulseAudio ("pulse") today.
///
/// Opening never fails: ``tracks()`` says which tracks record, or throws when audio is required
/// and a track could not open. Streams run from opening on (so handlers know the tracks before
/// they start); chunks reach the sink only once ``deliver(to:)`` connected it.
package protocol AudioSource: AnyObject, Sendable {
    /// The tracks that record.
    /// - Throws: the first failure, when the request required audio.
    func tracks() throws(CaptureError) -> [SampleBufferType]
    /// Sends every chunk from now on to `sink`.
    func deliver(to sink: @escaping AudioChunkSink)
    /// Called (on a queue of the source's own) when the audio server goes away while recording;
    /// the tracks then go on as silence.
    var onDisconnect: (@Sendable (String) -> Void)? { get set }
    /// Stops the streams; idempotent.
    func stop()
    /// Stops the streams and closes the connection; idempotent.
    func close()
}
