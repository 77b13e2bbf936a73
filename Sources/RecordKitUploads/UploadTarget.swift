import Foundation

/// Where an upload goes, parsed from the text a user types (docs/UPLOADS.md, "Targets"):
/// - `s3://BUCKET` or `s3://BUCKET/PREFIX`: S3 multipart upload (endpoint, region and
///   addressing from ``S3Options``);
/// - `https://…` or `http://…`: a presigned URL, one `PUT` of the whole file;
/// - `tus+https://…` or `tus+http://…`: a tus 1.0 creation endpoint (the URL without `tus+`).
/// Value type; ``redacted`` is the only form that may be shown.
package enum UploadTarget: Codable, Sendable, Equatable {
    case s3(bucket: String, prefix: String)
    case presigned(url: String)
    case tus(endpoint: String)

    /// Parses `text`; throws a `badTarget` error whose message shows the target redacted.
    package static func parse(_ text: String) throws(UploadError) -> UploadTarget {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.hasPrefix("s3://") {
            let rest = t.dropFirst(5)
            let bucket = String(rest.prefix { $0 != "/" })
            let prefix = rest.dropFirst(bucket.count).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            guard isValidBucket(bucket) else {
                throw UploadError(.badTarget, "'\(redact(t))' has no valid bucket name (3-63 of a-z, 0-9, '.', '-'): write s3://BUCKET or s3://BUCKET/PREFIX")
            }
            return .s3(bucket: bucket, prefix: prefix)
        }
        if t.hasPrefix("tus+http://") || t.hasPrefix("tus+https://") {
            let url = String(t.dropFirst(4))
            guard isHTTPURL(url) else { throw UploadError(.badTarget, "'\(redact(t))' is not a tus URL: write tus+https://HOST/PATH") }
            return .tus(endpoint: url)
        }
        if t.hasPrefix("http://") || t.hasPrefix("https://") {
            guard isHTTPURL(t) else { throw UploadError(.badTarget, "'\(redact(t))' is not a URL: write https://HOST/PATH?SIGNED-QUERY") }
            return .presigned(url: t)
        }
        throw UploadError(.badTarget, "'\(redact(t))' is not an upload target: write s3://BUCKET/PREFIX, https://… (a presigned PUT URL) or tus+https://… (docs/UPLOADS.md)")
    }

    /// The target as it may be shown: a URL's query (the presigned signature and credential)
    /// and user info are replaced by `…`.
    package var redacted: String {
        switch self {
        case .s3(let bucket, let prefix): return prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)"
        case .presigned(let url): return Self.redact(url)
        case .tus(let endpoint): return "tus+" + Self.redact(endpoint)
        }
    }

    /// `text` without a URL's query, fragment and user info (each replaced by `…`), and
    /// cut to 200 characters.
    package static func redact(_ text: String) -> String {
        var s = text
        if let q = s.firstIndex(where: { $0 == "?" || $0 == "#" }) { s = String(s[..<q]) + "?…" }
        if let scheme = s.range(of: "://"), let at = s[scheme.upperBound...].prefix(while: { $0 != "/" }).lastIndex(of: "@") {
            s = String(s[..<scheme.upperBound]) + "…@" + String(s[s.index(after: at)...])
        }
        return s.count > 200 ? String(s.prefix(200)) + "…" : s
    }

    private static func isHTTPURL(_ s: String) -> Bool {
        guard let c = URLComponents(string: s), let scheme = c.scheme, ["http", "https"].contains(scheme),
              let host = c.host, !host.isEmpty else { return false }
        return true
    }

    private static func isValidBucket(_ b: String) -> Bool {
        (3...63).contains(b.count) && b.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
            && b.first != "." && b.first != "-" && b.last != "." && b.last != "-"
    }
}
