import RecordKit

/// An RTMP endpoint parsed from `rtmp[s]://[user[:password]@]host[:port]/app[/…]/KEY[?query]`.
///
/// The application is every path component but the last (`live`, or `app/instance`); the
/// stream key is the last component with any query string (`KEY?bandwidthtest=true`), as
/// FFmpeg, OBS and the services read such URLs. The key and any user information are secrets:
/// ``masked`` (and ``description``) show the URL as `rtmp://host[:port]/app/****`, and nothing
/// in this type's errors quotes them.
package struct RTMPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The protocols a URL may use.
    package enum Scheme: String, Sendable, Hashable {
        /// RTMP over TCP, port 1935 by default.
        case rtmp
        /// RTMP over TLS, port 443 by default (needs an FFmpeg built with TLS).
        case rtmps

        /// The port used when the URL names none.
        package var defaultPort: Int { self == .rtmp ? 1935 : 443 }
    }

    /// The URL as given: secret.
    package let url: String
    /// The protocol.
    package let scheme: Scheme
    /// The host name or address (IPv6 without brackets).
    package let host: String
    /// The port named in the URL, if any.
    package let explicitPort: Int?
    /// The application path (`live`, `app/instance`).
    package let application: String
    /// The stream key with its query string, if any: secret.
    package let streamKey: String
    /// User information before the host (`user:password`), if any: secret.
    let userInfo: String?
    /// For `rtmps://`: a PEM file of the certificate authorities (or self-signed certificates)
    /// to trust instead of the system's store; nil trusts the system's store. Not part of the
    /// URL: the handler sets it from ``RTMPOutputOptions/caFile``. The path is no secret.
    package var caFile: String?

    /// The port connected to.
    package var port: Int { explicitPort ?? scheme.defaultPort }

    /// The URL with the stream key (and any user information) replaced: `rtmp://host/app/****`.
    package var masked: String {
        "\(scheme.rawValue)://\(hostAndPort)/\(application)/****"
    }

    /// `host[:port]` as the URL wrote it (IPv6 in brackets).
    package var hostAndPort: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return explicitPort.map { "\(name):\($0)" } ?? name
    }

    /// The masked URL.
    package var description: String { masked }

    /// The strings that must never be shown: the key, the key without its query, the user
    /// information (non-empty ones only).
    var secrets: [String] {
        var result = [streamKey]
        if let query = streamKey.firstIndex(of: "?") { result.append(String(streamKey[..<query])) }
        if let userInfo { result.append(userInfo) }
        return result.filter { !$0.isEmpty }
    }

    /// Options that tell libavformat's RTMP client exactly which application and stream to use,
    /// rather than letting it guess from the URL (it would otherwise, for example, strip a
    /// `.flv` ending or a `mp4:` prefix from the key, or take only the first path component of
    /// a multi-level application).
    ///
    /// For `rtmps://` the server's certificate is verified: libavformat's `tls` protocol (under
    /// `rtmps`, which hands down the options it does not know itself) checks the chain against
    /// ``caFile`` or the system's store, and the certificate's names against ``host``
    /// (`tls_verify`, `ca_file`; FFmpeg's default is to verify nothing).
    var ffmpegOptions: [String: String] {
        var options = ["rtmp_app": application, "rtmp_playpath": streamKey, "tcp_nodelay": "1"]
        if scheme == .rtmps {
            options["tls_verify"] = "1"
            if let caFile { options["ca_file"] = caFile }
        }
        return options
    }

    /// Parses `url`.
    ///
    /// Throws ``BroadcastError/Kind/invalidSetup`` with a message that says what is missing or
    /// wrong (no scheme, another scheme than rtmp/rtmps, no host, a bad port, no application,
    /// no stream key, spaces), showing at most the masked form of the URL.
    package init(parsing url: String) throws(BroadcastError) {
        let expected = "expected rtmp://host[:port]/app/STREAM-KEY or rtmps://…"
        guard let separator = url.firstRange(of: "://") else {
            throw BroadcastError(.invalidSetup, "the RTMP URL (not shown, it may hold a stream key) has no scheme: \(expected)")
        }
        let schemeText = url[..<separator.lowerBound].lowercased()
        guard let scheme = Scheme(rawValue: schemeText) else {
            let shown = schemeText.count <= 16 && schemeText.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
                ? "'\(schemeText)'" : "(not shown)"
            throw BroadcastError(.invalidSetup, "RTMP URL scheme \(shown) is not supported: \(expected)")
        }
        let rest = url[separator.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var userInfo: String?
        if let at = authority.lastIndex(of: "@") {
            userInfo = String(authority[..<at])
            authority = authority[authority.index(after: at)...]
        }
        let shownPrefix = "\(scheme.rawValue)://"
        guard url.allSatisfy({ !$0.isWhitespace && !$0.isNewline && $0.asciiValue.map { $0 >= 0x20 && $0 != 0x7F } ?? true }) else {
            throw BroadcastError(.invalidSetup, "the RTMP URL \(shownPrefix)… contains spaces or control characters: \(expected)")
        }

        // host, [v6], host:port, [v6]:port
        var host = Substring("")
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw BroadcastError(.invalidSetup, "the RTMP URL \(shownPrefix)… has an unterminated IPv6 address: \(expected)")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty {
                throw BroadcastError(.invalidSetup, "the RTMP URL \(shownPrefix)… has text after its IPv6 address: \(expected)")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else {
            throw BroadcastError(.invalidSetup, "the RTMP URL \(shownPrefix)… has no host: \(expected)")
        }
        var port: Int?
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else {
                throw BroadcastError(.invalidSetup, "the RTMP URL \(shownPrefix)\(host)… has a bad port '\(portText.prefix(8))': it must be 1 to 65535")
            }
            port = value
        }
        let hostShown = host.contains(":") ? "[\(host)]" : String(host)
        let shownHost = shownPrefix + hostShown + (port.map { ":\($0)" } ?? "")

        var path = rest[authorityEnd...]
        var query = Substring("")
        if let mark = path.firstIndex(of: "?") {
            query = path[path.index(after: mark)...]
            path = path[..<mark]
        }
        let components = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()  // before the first "/"
        let nonEmpty = components.filter { !$0.isEmpty }
        guard let key = components.last, !key.isEmpty, nonEmpty.count >= 2 else {
            if nonEmpty.isEmpty {
                throw BroadcastError(.invalidSetup, "the RTMP URL \(shownHost) has no application and no stream key: \(expected)")
            }
            if nonEmpty.count == 1, components.last?.isEmpty == false {
                throw BroadcastError(.invalidSetup, "the RTMP URL \(shownHost)/**** has no stream key (or no application): \(expected)")
            }
            // A trailing slash: the last non-empty component may well be the key; show none of it.
            throw BroadcastError(.invalidSetup, "the RTMP URL \(shownHost)/****/ ends with '/' and so has no stream key: \(expected)")
        }
        guard components.dropLast().allSatisfy({ !$0.isEmpty }) else {
            throw BroadcastError(.invalidSetup, "the RTMP URL \(shownHost)/… has an empty path component ('//'): \(expected)")
        }

        self.url = url
        self.scheme = scheme
        self.host = String(host)
        self.explicitPort = port
        self.application = components.dropLast().joined(separator: "/")
        self.streamKey = query.isEmpty ? String(key) : "\(key)?\(query)"
        self.userInfo = userInfo.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `text` with every secret of this endpoint replaced by `****`.
    package func mask(_ text: String) -> String {
        var text = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) where text.contains(secret) {
            text = text.replacing(secret, with: "****")
        }
        return text
    }
}
