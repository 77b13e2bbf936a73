import RecordKit

/// Where and how an ``RTMPUploadHandler`` broadcasts.
package struct RTMPOutputOptions: Sendable, Hashable {
    /// The endpoint, `rtmp://host[:port]/app/KEY` or `rtmps://…`. The last path component (with
    /// any query string) is the stream key: it is a secret and is never shown (``RTMPEndpoint``).
    package var url: String
    /// H.264 settings. Handlers (and a file) that use equal settings share one encoder.
    package var video: VideoEncoderSettings
    /// AAC settings of the one audio track: app and microphone audio mixed.
    package var audio: AudioEncoderSettings
    /// When and how often to reconnect after the connection was lost.
    package var reconnect: RTMPReconnectPolicy
    /// How much media (seconds of broadcast time) to hold while the connection is down or slow;
    /// beyond that the oldest whole groups of pictures are dropped.
    package var bufferSeconds: Double
    /// How long one connection attempt (TCP, TLS, RTMP handshake, publish) may take.
    package var connectTimeoutSeconds: Double
    /// How long one packet may take to write before the connection counts as lost.
    package var writeTimeoutSeconds: Double
    /// How long, once the broadcast finished, the handler keeps sending what it still holds
    /// before it closes the connection anyway.
    package var finishTimeoutSeconds: Double
    /// For `rtmps://`: a PEM file of the certificate authorities (or self-signed server
    /// certificates) to trust instead of the system's store (nil). The server's certificate is
    /// always verified: its chain, and that it names the URL's host.
    package var caFile: String?
    /// Something the user should know about this stream's encoding (it stays H.264 + AAC while
    /// the file is HEVC, …), published as `note` in the handler's service info; nil for none.
    package var note: String?

    /// What streaming services expect: H.264 `veryfast`, constant bitrate 6000 kbit/s, a key
    /// frame every 2 s.
    package static let defaultVideo = VideoEncoderSettings(
        preset: "veryfast", tune: nil, rateControl: .cbr(bitsPerSecond: 6_000_000), keyFrameIntervalSeconds: 2)

    /// AAC 48 kHz stereo at 160 kbit/s.
    package static let defaultAudio = AudioEncoderSettings(bitRate: 160_000)

    /// Creates options for `url` with the streaming defaults.
    package init(url: String, video: VideoEncoderSettings = RTMPOutputOptions.defaultVideo,
                audio: AudioEncoderSettings = RTMPOutputOptions.defaultAudio,
                reconnect: RTMPReconnectPolicy = RTMPReconnectPolicy(), bufferSeconds: Double = 10,
                connectTimeoutSeconds: Double = 10, writeTimeoutSeconds: Double = 10, finishTimeoutSeconds: Double = 5) {
        self.url = url
        self.video = video
        self.audio = audio
        self.reconnect = reconnect
        self.bufferSeconds = bufferSeconds
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.writeTimeoutSeconds = writeTimeoutSeconds
        self.finishTimeoutSeconds = finishTimeoutSeconds
    }

    /// Checks the numbers (not the URL: see ``RTMPEndpoint/init(parsing:)``).
    func validate() throws(BroadcastError) {
        func positive(_ value: Double, _ name: String) throws(BroadcastError) {
            guard value > 0, value.isFinite else {
                throw BroadcastError(.invalidSetup, "RTMP \(name) must be a positive number of seconds, got \(value)")
            }
        }
        try positive(bufferSeconds, "buffer")
        try positive(connectTimeoutSeconds, "connect timeout")
        try positive(writeTimeoutSeconds, "write timeout")
        try positive(finishTimeoutSeconds, "finish timeout")
        try reconnect.validate()
    }
}
