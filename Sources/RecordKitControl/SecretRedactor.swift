/// Masks what may be a secret in any text shown to people or written to a log: the stream key
/// of every streaming URL (`rtmp`, `rtmps`, `rtmpt`, `rtmpe`, `rtmpte`, `rtmpts`, `srt`, `rtsp`)
/// and the user information of every URL, malformed URLs included.
///
/// A streaming URL keeps its scheme, host, port and first path component (the application);
/// everything after it (key, further components, query) becomes `****`, and a URL with a single
/// path component becomes `scheme://host/****` (that component may be the key). So
/// `rtmp://h/live/KEY/` (a trailing slash) and `rtmp://h/live/KEY?x=1` both show as
/// `rtmp://h/live/****`. Idempotent: an already masked URL is unchanged. Pure; any thread.
package enum SecretRedactor {
    /// Schemes whose path after the application is a secret.
    static let streamingSchemes: Set<String> = ["rtmp", "rtmps", "rtmpt", "rtmpe", "rtmpte", "rtmpts", "srt", "rtsp", "rtsps"]

    /// `text` with every URL's secrets replaced by `****`.
    package static func redact(_ text: String) -> String {
        guard text.contains("://") else { return text }
        var out = ""
        var rest = Substring(text)
        while let sep = rest.firstRange(of: "://") {
            // The scheme: the letters, digits, + - . right before "://".
            var schemeStart = sep.lowerBound
            while schemeStart > rest.startIndex {
                let c = rest[rest.index(before: schemeStart)]
                guard c.isASCII, c.isLetter || c.isNumber || c == "+" || c == "-" || c == "." else { break }
                schemeStart = rest.index(before: schemeStart)
            }
            out += rest[..<schemeStart]
            let scheme = rest[schemeStart..<sep.lowerBound]
            let tokenEnd = rest[sep.upperBound...].firstIndex(where: isTokenEnd) ?? rest.endIndex
            out += masked(scheme: String(scheme), body: rest[sep.upperBound..<tokenEnd])
            rest = rest[tokenEnd...]
        }
        return out + rest
    }

    private static func isTokenEnd(_ c: Character) -> Bool {
        // Closing brackets and separators end a URL in running text ("… (rtmp://h/live/KEY): …"),
        // so the text after it survives; a key containing one of them shows its tail (keys are
        // letters, digits, - _ . ? = & in practice).
        c.isWhitespace || c == "\"" || c == "'" || c == "`" || c == "<" || c == ">" || c == ")" || c == "]" || c == "," || c == ";"
    }

    private static func masked(scheme: String, body: Substring) -> String {
        let authorityEnd = body.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? body.endIndex
        var authority = body[..<authorityEnd]
        var shown = scheme + "://"
        if let at = authority.lastIndex(of: "@") {
            shown += "****@"
            authority = authority[authority.index(after: at)...]
        }
        shown += authority
        let path = body[authorityEnd...]
        guard streamingSchemes.contains(scheme.lowercased()), !path.isEmpty, path != "/" else { return shown + path }
        let components = path.dropFirst().split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        // One component (or a query right after the host): it may be the key.
        if path.first != "/" || components.count < 2 || components[0].contains("?") { return shown + "/****" }
        return shown + "/" + components[0] + "/****"
    }
}
