import Foundation
import Glibc
import RecordKit
import RecordKitMedia

/// An SRT endpoint in caller mode, parsed from `srt://HOST:PORT[?streamid=…&passphrase=…&latency=…]`:
/// MPEG-TS over SRT through libavformat's libsrt protocol (Debian's FFmpeg 5.1 has it).
///
/// The query goes to libsrt as it is, so every libsrt option works (`latency` and `timeout` are
/// in microseconds there, `connect_timeout` in milliseconds, `pkt_size` at most 1456); `mode`
/// other than `caller` is refused (RecordKit connects to a listener). `streamid` and
/// `passphrase` are secrets: ``masked`` shows them as `****`, and so does every message.
struct SRTEndpoint: StreamDestination, CustomStringConvertible {
    let url: String
    let host: String
    let port: Int
    /// The query's parameters in order (names lowercased).
    let parameters: [(name: String, value: String)]

    /// The names whose values are secrets.
    static let secretNames: Set<String> = ["passphrase", "streamid"]

    /// `srt://host:port?streamid=****&passphrase=****&latency=…`.
    var masked: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let query = parameters.map { "\($0.name)=\(Self.secretNames.contains($0.name) && !$0.value.isEmpty ? "****" : $0.value)" }
        return "srt://\(shownHost):\(port)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    var description: String { masked }

    /// The passphrase and stream id, raw and as they appear percent-decoded.
    var secrets: [String] {
        parameters.filter { Self.secretNames.contains($0.name) && !$0.value.isEmpty }
            .flatMap { [$0.value, $0.value.removingPercentEncoding ?? $0.value] }
    }

    var ffmpegOptions: [String: String] { [:] }

    /// MPEG-TS, flushed per packet: SRT carries 7 TS packets (1316 bytes) per datagram.
    var container: (name: String, options: [String: String]) { ("mpegts", ["flush_packets": "1"]) }

    /// An SRT receiver holds every packet for its latency (TSBPD) and stops delivering as soon
    /// as the caller closes (Haivision/srt#2760; `SRTO_LINGER` does not apply in live mode), so
    /// a stream closed right after its last packet loses its last `latency` at the receiver.
    /// The sender therefore waits twice the latency (libsrt's 120 ms unless the URL says) plus
    /// 0.3 s for the send buffer, at most 5 s, before it closes.
    var secondsToKeepOpenAfterLastPacket: Double {
        let latencyMicroseconds = parameters.last { $0.name == "latency" }.flatMap { Int64($0.value) } ?? 120_000
        return min(5, 2 * Double(max(0, latencyMicroseconds)) / 1_000_000 + 0.3)
    }

    /// The passphrase, when one is given.
    var passphrase: String? { parameters.last { $0.name == "passphrase" }?.value }

    /// Parses `url`. Throws ``BroadcastError/Kind/invalidSetup`` naming what is wrong, never
    /// quoting a secret.
    init(parsing url: String) throws(BroadcastError) {
        let expected = "expected srt://HOST:PORT[?streamid=…&passphrase=…&latency=…]"
        guard url.lowercased().hasPrefix("srt://") else {
            throw BroadcastError(.invalidSetup, "the SRT URL (not shown, it may hold a passphrase) does not start with srt://: \(expected)")
        }
        guard url.allSatisfy({ !$0.isWhitespace && $0.asciiValue.map { $0 >= 0x20 && $0 != 0x7F } ?? true }) else {
            throw BroadcastError(.invalidSetup, "the SRT URL srt://… contains spaces or control characters: \(expected)")
        }
        let rest = url.dropFirst("srt://".count)
        let queryStart = rest.firstIndex(of: "?")
        var authority = rest[..<(queryStart ?? rest.endIndex)]
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.contains("/"), !authority.contains("@") else {
            throw BroadcastError(.invalidSetup, "the SRT URL srt://… has a path or user information; SRT takes neither: \(expected)")
        }
        var host = Substring("")
        var portText = Substring("")
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
            portText = authority[authority.index(after: close)...].drop { $0 == ":" }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw BroadcastError(.invalidSetup, "the SRT URL srt://… has no host: \(expected)") }
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw BroadcastError(.invalidSetup, "the SRT URL srt://\(host)… needs a port from 1 to 65535 (SRT has no default port): \(expected)")
        }
        var parameters: [(name: String, value: String)] = []
        if let queryStart {
            for pair in rest[rest.index(after: queryStart)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                parameters.append((String(parts[0]).lowercased(), parts.count > 1 ? String(parts[1]) : ""))
            }
        }
        if let mode = parameters.last(where: { $0.name == "mode" })?.value, mode.lowercased() != "caller" {
            throw BroadcastError(.invalidSetup, "the SRT URL srt://\(host):\(port) asks for mode=\(mode.prefix(12)); RecordKit connects as a caller to a listener: leave mode out")
        }
        if let passphrase = parameters.last(where: { $0.name == "passphrase" })?.value, !passphrase.isEmpty,
           !(10...79).contains(passphrase.count) {
            throw BroadcastError(.invalidSetup, "the SRT passphrase for srt://\(host):\(port) must be 10 to 79 characters long (it has \(passphrase.count))")
        }
        for name in ["latency", "timeout", "connect_timeout", "pkt_size"] {
            if let value = parameters.last(where: { $0.name == name })?.value, Int64(value) == nil {
                throw BroadcastError(.invalidSetup, "the SRT URL srt://\(host):\(port) has \(name)=\(value.prefix(16)), which is not a whole number")
            }
        }
        self.url = url
        self.host = String(host)
        self.port = port
        self.parameters = parameters
    }

    /// SRT runs over UDP: a listener that is not there does not refuse, it never answers, and
    /// libsrt reports that after its connect timeout (3 s) as an I/O error, the same code as a
    /// listener that rejects the caller (a wrong or missing passphrase, a refused stream id),
    /// which answers within milliseconds. The time taken tells them apart.
    func connectFailure(_ error: MediaError, log: [String], timedOut: Bool, timeout: Double, elapsed: Double) -> RTMPFailure {
        if timedOut { return RTMPFailure(reason: .timedOut(seconds: timeout)) }
        let connectTimeout = Double(parameters.last { $0.name == "connect_timeout" }.flatMap { Int64($0.value) } ?? 3000) / 1000
        if error.code == -EIO || error.isEndOfFile {
            return elapsed < connectTimeout * 0.8 ? RTMPFailure(reason: .rejected(serverMessage: nil))
                : RTMPFailure(reason: .timedOut(seconds: connectTimeout))
        }
        return RTMPFailure(reason: .other(error.reason ?? error.message))
    }

    func firstConnectionError(_ failure: RTMPFailure) -> BroadcastError {
        switch failure.reason {
        case .rejected:
            let key = passphrase.map { $0.isEmpty ? "" : " (this URL gives one)" } ?? " (this URL gives none)"
            return BroadcastError(.invalidSetup, "the SRT listener at \(masked) rejected the connection: check that the passphrase\(key) "
                + "is the listener's, and the streamid")
        case .timedOut(let seconds):
            return BroadcastError(.networkFailed, "cannot stream to \(masked): no SRT listener answered at \(host):\(port) (UDP) within "
                + "\(RTMPFailure.format(seconds)) s; is it running, and is the port right?")
        case .unknownHost(let why):
            return BroadcastError(.networkFailed, "cannot stream to \(masked): the host '\(host)' is unknown (\(why)); check the URL")
        default:
            return BroadcastError(.networkFailed, "cannot stream to \(masked): \(failure.summary)")
        }
    }

    func gaveUpError(_ failure: RTMPFailure, attempts: Int, seconds: Double) -> BroadcastError {
        BroadcastError(.networkFailed, "lost the connection to \(masked) and could not reconnect: "
            + "\(attempts) attempt\(attempts == 1 ? "" : "s") over \(RTMPFailure.format(seconds)) s, the last one failed with: \(failure.summary)")
    }
}
