import RecordKit
import RecordKitMedia

/// Where an ``RTMPSender`` sends: what it connects to, in which container, what must never be
/// shown, and how a failure reads to the user. ``RTMPEndpoint`` (FLV over RTMP or RTMPS) and
/// ``SRTEndpoint`` (MPEG-TS over SRT) are the two; one sender, one queue with one drop policy
/// (``PacketQueue``) and one reconnect policy serve both. Values; any thread.
protocol StreamDestination: Sendable {
    /// The URL given to libavformat: secret.
    var url: String { get }
    /// The URL as messages and status show it, secrets replaced by `****`.
    var masked: String { get }
    /// The strings that must never be shown (registered with ``FFmpegLog`` while connected).
    var secrets: [String] { get }
    /// The host name or address resolved before connecting.
    var host: String { get }
    /// The port connected to (for the resolver: TCP for RTMP, UDP for SRT).
    var port: Int { get }
    /// Protocol options for ``NetworkOutput``.
    var ffmpegOptions: [String: String] { get }
    /// The libavformat muxer (`flv`, `mpegts`) and its options.
    var container: (name: String, options: [String: String]) { get }
    /// How long to keep the connection open after the last packet of a drained stream, so
    /// that the receiver delivers what it still holds (0: close at once).
    var secondsToKeepOpenAfterLastPacket: Double { get }

    /// Classifies a failed connection attempt; `elapsed` is how long it took.
    func connectFailure(_ error: MediaError, log: [String], timedOut: Bool, timeout: Double, elapsed: Double) -> RTMPFailure
    /// The error that ends the handler when the first connection fails with `failure`.
    func firstConnectionError(_ failure: RTMPFailure) -> BroadcastError
    /// The error that ends the handler when reconnecting failed `attempts` times over `seconds`.
    func gaveUpError(_ failure: RTMPFailure, attempts: Int, seconds: Double) -> BroadcastError
}

extension RTMPEndpoint: StreamDestination {
    /// TCP delivers what was written before the close.
    var secondsToKeepOpenAfterLastPacket: Double { 0 }

    var container: (name: String, options: [String: String]) {
        ("flv", ["flvflags": "no_duration_filesize", "flush_packets": "1"])
    }

    func connectFailure(_ error: MediaError, log: [String], timedOut: Bool, timeout: Double, elapsed: Double) -> RTMPFailure {
        RTMPFailure.connecting(error, log: log, timedOut: timedOut, timeout: timeout)
    }

    func firstConnectionError(_ failure: RTMPFailure) -> BroadcastError { failure.firstConnectionError(self) }

    func gaveUpError(_ failure: RTMPFailure, attempts: Int, seconds: Double) -> BroadcastError {
        failure.gaveUpError(self, attempts: attempts, seconds: seconds)
    }
}
