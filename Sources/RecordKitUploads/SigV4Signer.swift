import Foundation
import RecordKitDigest

/// AWS Signature Version 4 for requests signed in the `Authorization` header
/// (docs.aws.amazon.com, "Authenticating Requests: Using the Authorization Header"). Written here
/// rather than taken from a package: the only Swift packages that sign (Soto) are not on this
/// machine's list, and the algorithm is 60 lines over libcrypto's HMAC and SHA-256 (RecordKitDigest).
/// Value type, no state: safe from any thread.
package struct SigV4Signer: Sendable {
    package var credentials: S3Credentials
    package var region: String
    package var service: String

    /// A signer for `service` ("s3") in `region`.
    package init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// `x-amz-date`'s form of `date` (UTC, `yyyyMMdd'T'HHmmss'Z'`).
    package static func amzDate(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return f.string(from: date)
    }

    /// The `Authorization` header's value. `canonicalURI` is the path as sent (already
    /// URI-encoded, S3 style: not encoded twice); `query` holds raw (unencoded) pairs; `headers`
    /// are every header signed, `host` and `x-amz-date` (= `amzDate`) among them.
    package func authorization(method: String, canonicalURI: String, query: [(String, String)],
                               headers: [(String, String)], payloadHash: String, amzDate: String) -> String {
        let (canonical, signed) = Self.canonicalRequest(method: method, canonicalURI: canonicalURI, query: query,
                                                        headers: headers, payloadHash: payloadHash)
        let day = String(amzDate.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = "AWS4-HMAC-SHA256\n\(amzDate)\n\(scope)\n\(Self.hex(SHA256.hash(data: Data(canonical.utf8))))"
        var key = Array("AWS4\(credentials.secretAccessKey)".utf8)
        for part in [day, region, service, "aws4_request"] {
            key = HMACSHA256.authenticationCode(for: Array(part.utf8), key: key)
        }
        let signature = Self.hex(HMACSHA256.authenticationCode(for: Array(stringToSign.utf8), key: key))
        return "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signed), Signature=\(signature)"
    }

    /// The canonical request and the signed-headers list (exposed for the test vectors).
    package static func canonicalRequest(method: String, canonicalURI: String, query: [(String, String)],
                                         headers: [(String, String)], payloadHash: String) -> (String, String) {
        var pairs: [(String, String)] = query.map { (uriEncode($0.0), uriEncode($0.1)) }
        pairs.sort { (a: (String, String), b: (String, String)) -> Bool in a.0 == b.0 ? a.1 < b.1 : a.0 < b.0 }
        let q = pairs.map { (p: (String, String)) -> String in p.0 + "=" + p.1 }.joined(separator: "&")
        var merged: [String: [String]] = [:]
        for (name, value) in headers {
            let v = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            merged[name.lowercased(), default: []].append(v)
        }
        let names = merged.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(merged[$0]!.joined(separator: ","))\n" }.joined()
        let signed = names.joined(separator: ";")
        return ("\(method)\n\(canonicalURI)\n\(q)\n\(canonicalHeaders)\n\(signed)\n\(payloadHash)", signed)
    }

    /// RFC 3986 encoding as SigV4 wants it: everything but `A-Za-z0-9-_.~` (and `/` when
    /// `keepSlash`) as `%XX` with upper-case hex.
    package static func uriEncode(_ s: String, keepSlash: Bool = false) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(b))
            case UInt8(ascii: "/") where keepSlash:
                out.append("/")
            default:
                out += String(format: "%%%02X", b)
            }
        }
        return out
    }

    /// Lower-case hex of a digest or MAC.
    package static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// SHA-256 of nothing, hex: the payload hash of a request without a body.
    package static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
}
