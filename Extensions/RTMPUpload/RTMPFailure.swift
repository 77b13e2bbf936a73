import Glibc
import RecordKit
import RecordKitMedia

/// Why a connection to an RTMP endpoint could not be made or was lost, in words a user can act
/// on. Built from FFmpeg's error code, what FFmpeg logged meanwhile (captured, masked) and what
/// the sender knows (the host resolved, the interrupt's deadline passed).
struct RTMPFailure: Error, Sendable, Equatable {
    enum Reason: Sendable, Equatable {
        /// The host name does not resolve.
        case unknownHost(String)
        /// Nothing accepts connections at host:port.
        case refused
        /// No answer within the timeout.
        case timedOut(seconds: Double)
        /// Something answered but not as an RTMP server (the handshake failed).
        case notRTMP(String)
        /// The server accepted the connection but refused to publish the stream.
        case rejected(serverMessage: String?)
        /// `rtmps://`: the server's certificate does not chain to a trusted authority
        /// (self-signed, a private CA, expired, …).
        case certificateUntrusted
        /// `rtmps://`: the server's certificate is valid but names another host.
        case certificateWrongHost
        /// `rtmps://`: the TLS handshake failed (FFmpeg's words): not a TLS port, no common
        /// protocol version, …
        case tlsFailed(String)
        /// The connection broke while sending.
        case lost(String)
        /// Anything else (FFmpeg's words).
        case other(String)
    }

    var reason: Reason

    /// A short phrase for status (`connection refused`, `lost: Broken pipe`), without the URL.
    var summary: String {
        switch reason {
        case .unknownHost: return "unknown host"
        case .refused: return "connection refused"
        case .timedOut: return "timed out"
        case .notRTMP: return "not an RTMP server"
        case .rejected: return "publish rejected"
        case .certificateUntrusted: return "TLS certificate not trusted"
        case .certificateWrongHost: return "TLS certificate for another host"
        case .tlsFailed(let why): return "TLS handshake failed: \(why)"
        case .lost(let why): return "connection lost: \(why)"
        case .other(let why): return why
        }
    }

    /// The error that ends the handler when this happens on the first connection.
    func firstConnectionError(_ endpoint: RTMPEndpoint) -> BroadcastError {
        let target = "\(endpoint.hostAndPort)" + (endpoint.explicitPort == nil ? ":\(endpoint.port)" : "")
        switch reason {
        case .unknownHost(let why):
            return BroadcastError(.networkFailed, "cannot broadcast to \(endpoint.masked): the host '\(endpoint.host)' is unknown (\(why)); check the URL")
        case .refused:
            return BroadcastError(.networkFailed, "cannot broadcast to \(endpoint.masked): \(target) refused the connection; is the RTMP server running, and is the port right?")
        case .timedOut(let seconds):
            return BroadcastError(.networkFailed, "cannot broadcast to \(endpoint.masked): no answer from \(target) within \(Self.format(seconds)) s")
        case .notRTMP(let why):
            return BroadcastError(.networkFailed, "cannot broadcast to \(endpoint.masked): \(target) does not answer as an RTMP server (\(why))")
        case .rejected(let message):
            let said = message.map { " (the server said: \($0))" } ?? ""
            return BroadcastError(.invalidSetup, "the RTMP server at \(endpoint.masked) refused to publish the stream\(said): "
                + "check the stream key and the application name '\(endpoint.application)', and that the key is not already in use")
        case .certificateUntrusted:
            let trusted = endpoint.caFile.map { "the CA file \($0)" } ?? "the system's trusted certificates"
            return BroadcastError(.networkFailed, "cannot broadcast to \(endpoint.masked): the server's TLS certificate was refused: "
                + "it is self-signed or signed by a certificate authority that is not in \(trusted) (or it has expired). "
                + "If you trust this server, give the certificate of the authority that signed it (for a self-signed "
                + "certificate, the certificate itself) with --rtmp-ca-file PATH (config file: [rtmp] ca-file)")
        case .certificateWrongHost:
            return BroadcastError(.networkFailed, "cannot broadcast to \(endpoint.masked): the server's TLS certificate was refused: "
                + "it is made out for another host than '\(endpoint.host)'. Use the host name the certificate names in the "
                + "URL (--rtmp-ca-file cannot change this; the certificate's chain itself was trusted)")
        case .tlsFailed(let why):
            return BroadcastError(.networkFailed, "cannot broadcast to \(endpoint.masked): the TLS handshake with \(target) failed "
                + "(\(why)); is it an RTMPS port? (rtmps:// speaks TLS, rtmp:// does not)")
        case .lost(let why):
            return BroadcastError(.networkFailed, "the connection to \(endpoint.masked) broke before the broadcast went live: \(why)")
        case .other(let why):
            return BroadcastError(.networkFailed, "cannot broadcast to \(endpoint.masked): \(why)")
        }
    }

    /// The error that ends the handler when reconnecting failed `attempts` times.
    func gaveUpError(_ endpoint: RTMPEndpoint, attempts: Int, seconds: Double) -> BroadcastError {
        BroadcastError(.networkFailed, "lost the connection to \(endpoint.masked) and could not reconnect: "
            + "\(attempts) attempt\(attempts == 1 ? "" : "s") over \(Self.format(seconds)) s, the last one failed with: \(summary)")
    }

    /// Classifies a failed connection attempt.
    static func connecting(_ error: MediaError, log: [String], timedOut: Bool, timeout: Double) -> RTMPFailure {
        let code = error.code ?? 0
        let why = error.reason ?? error.message
        if timedOut { return RTMPFailure(reason: .timedOut(seconds: timeout)) }
        if code == -ECONNREFUSED { return RTMPFailure(reason: .refused) }
        if code == -ETIMEDOUT || code == -EHOSTUNREACH || code == -ENETUNREACH {
            return code == -ETIMEDOUT ? RTMPFailure(reason: .timedOut(seconds: timeout)) : RTMPFailure(reason: .other(why))
        }
        if let line = log.first(where: { $0.contains("Failed to resolve hostname") }) {
            return RTMPFailure(reason: .unknownHost(Self.after(": ", in: line) ?? why))
        }
        if let tls = tlsFailure(log) { return tls }
        if let line = log.first(where: { $0.lowercased().contains("handshake") }) {
            return RTMPFailure(reason: .notRTMP(Self.message(of: line)))
        }
        if let line = log.first(where: { $0.contains("Server error") }) {
            return RTMPFailure(reason: .rejected(serverMessage: Self.after("Server error: ", in: line) ?? Self.message(of: line)))
        }
        if code == -EIO || error.isEndOfFile {
            // The TCP connection was made (the host resolved, nothing refused) and the server
            // closed it during connect/publish: how nginx-rtmp answers a refused on_publish.
            return RTMPFailure(reason: .rejected(serverMessage: nil))
        }
        return RTMPFailure(reason: .other(log.last.map(Self.message(of:)) ?? why))
    }

    /// What libavformat's `tls` protocol (GnuTLS in Debian's FFmpeg 5.1, `tls_gnutls.c`) logged
    /// when it refused the server's certificate or the handshake failed, or nil when it logged
    /// nothing. Its words: "Peer certificate failed verification" and "Unable to verify peer
    /// certificate: …" (the chain), "The certificate's owner does not match hostname H" (the
    /// name); any other `[tls @ …]` error is GnuTLS's message for a failed handshake.
    static func tlsFailure(_ log: [String]) -> RTMPFailure? {
        let tlsLines = log.filter { $0.hasPrefix("[tls @") }
        if tlsLines.contains(where: { $0.contains("does not match hostname") }) {
            return RTMPFailure(reason: .certificateWrongHost)
        }
        if tlsLines.contains(where: { $0.contains("certificate failed verification") || $0.contains("Unable to verify peer certificate") }) {
            return RTMPFailure(reason: .certificateUntrusted)
        }
        if let line = tlsLines.first { return RTMPFailure(reason: .tlsFailed(Self.message(of: line))) }
        return nil
    }

    /// Classifies a failed write on a live connection.
    static func sending(_ error: MediaError, timedOut: Bool, timeout: Double) -> RTMPFailure {
        if timedOut { return RTMPFailure(reason: .lost("no progress for \(format(timeout)) s")) }
        return RTMPFailure(reason: .lost(error.reason ?? error.message))
    }

    /// Resolves `host` (blocking, not interruptible); nil when it resolves, else the resolver's words.
    static func resolve(_ host: String, port: Int) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        if let result { freeaddrinfo(result) }
        guard status != 0 else { return nil }
        if status == EAI_SYSTEM { return String(cString: strerror(errno)) }
        return String(cString: gai_strerror(status))
    }

    /// `[rtmp @ 0x…] Cannot read RTMP handshake response` → `Cannot read RTMP handshake response`.
    private static func message(of line: String) -> String {
        guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return line }
        return String(line[line.index(after: close)...]).trimmingSpaces()
    }

    private static func after(_ marker: String, in line: String) -> String? {
        guard let range = line.ranges(of: marker).last else { return nil }
        let text = String(line[range.upperBound...]).trimmingSpaces()
        return text.isEmpty ? nil : text
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String((seconds * 10).rounded() / 10)
    }
}

extension String {
    /// Without leading and trailing spaces.
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
