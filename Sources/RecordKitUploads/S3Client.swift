import Foundation
import RecordKitDigest
import XMLCoder

/// The S3 calls a multipart upload needs, signed with SigV4, on an ``HTTPTransport``. Blocking
/// calls run on the upload thread; ``startUploadPart`` only starts a request so several parts
/// can be in flight. Immutable: safe from any thread.
package final class S3Client: Sendable {
    let transport: HTTPTransport
    let signer: SigV4Signer
    let scheme: String
    let host: String
    let port: Int?
    let basePath: String
    let pathStyle: Bool
    package let bucket: String

    /// A client for `bucket` at the endpoint and region `options` resolve to, with `credentials`.
    package init(transport: HTTPTransport, bucket: String, options: S3Options, credentials: S3Credentials,
                 environment: [String: String] = ProcessInfo.processInfo.environment) throws(UploadError) {
        let r = try options.resolved(environment: environment)
        self.transport = transport
        self.signer = SigV4Signer(credentials: credentials, region: r.region)
        self.scheme = r.endpoint.scheme ?? "https"
        self.host = r.endpoint.host ?? ""
        self.port = r.endpoint.port
        self.basePath = r.endpoint.percentEncodedPath
        self.pathStyle = r.pathStyle
        self.bucket = bucket
    }

    /// `host:port` of the endpoint, for messages.
    package var hostForErrors: String { port.map { "\(host):\($0)" } ?? host }

    private var hostHeader: String {
        let h = pathStyle ? host : "\(bucket).\(host)"
        guard let port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) else { return h }
        return "\(h):\(port)"
    }

    private func canonicalPath(_ key: String?) -> String {
        let k = key.map { SigV4Signer.uriEncode($0, keepSlash: true) }
        if pathStyle { return basePath + "/" + bucket + (k.map { "/" + $0 } ?? "") }
        return basePath + "/" + (k ?? "")
    }

    /// The object's URL (no query): what `upload-completed` reports.
    package func objectURL(_ key: String) -> String { "\(scheme)://\(hostHeader)\(canonicalPath(key))" }

    /// Starts a signed request. `payloadHash`: hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`
    /// (parts, whose `Content-MD5` the server checks and the signature covers).
    func start(_ method: HTTPMethod, key: String?, query: [(String, String)] = [], headers extra: [(String, String)] = [],
               body: HTTPRequestBody? = nil, payloadHash: String = SigV4Signer.emptyPayloadHash,
               timeout: Int? = nil) -> PendingHTTPRequest {
        let amzDate = SigV4Signer.amzDate(Date())
        var headers: [(String, String)] = [("host", hostHeader), ("x-amz-date", amzDate), ("x-amz-content-sha256", payloadHash)]
        if let token = signer.credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
        headers += extra
        let path = canonicalPath(key)
        let authorization = signer.authorization(method: method.rawValue, canonicalURI: path, query: query, headers: headers,
                                                 payloadHash: payloadHash, amzDate: amzDate)
        headers.append(("authorization", authorization))
        let q = query.map { "\(SigV4Signer.uriEncode($0.0))=\(SigV4Signer.uriEncode($0.1))" }.sorted().joined(separator: "&")
        let portPart = port.map { ":\($0)" } ?? ""
        let url = "\(scheme)://\(pathStyle ? host : "\(bucket).\(host)")\(portPart)\(path)\(q.isEmpty ? "" : "?" + q)"
        return transport.start(method, url: url, headers: headers, body: body, timeout: timeout)
    }

    private func call(_ method: HTTPMethod, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
                      body: Data? = nil) throws(UploadError) -> HTTPReply {
        let hash = body.map { SigV4Signer.hex(SHA256.hash(data: $0)) } ?? SigV4Signer.emptyPayloadHash
        return try transport.wait(start(method, key: key, query: query, headers: headers, body: body.map { .bytes([UInt8]($0)) }, payloadHash: hash),
                                  host: hostForErrors)
    }

    /// The error a non-2xx reply stands for: `NoSuchUpload` is `forgotten`, the rest `permanent`.
    package func failure(_ reply: HTTPReply, doing what: String) -> UploadError {
        let code = S3ErrorBody.code(reply.text)
        if code == "NoSuchUpload" { return UploadError(.forgotten, "the server no longer knows the multipart upload (\(what))") }
        var hint = ""
        switch code ?? "" {
        case "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "ExpiredToken", "InvalidToken":
            hint = ": check the service's S3 credentials (docs/UPLOADS.md, Credentials)"
        case "NoSuchBucket":
            hint = ": bucket '\(bucket)' does not exist at \(hostForErrors); create it or fix the target"
        default:
            if reply.status == 403 { hint = ": check the service's S3 credentials" }
        }
        return UploadError(.permanent, "\(what) on \(hostForErrors) failed: HTTP \(reply.status)\(S3ErrorBody.summary(reply.text))\(hint)")
    }

    /// `CreateMultipartUpload`: the new upload id.
    package func createMultipartUpload(key: String) throws(UploadError) -> String {
        let reply = try call(.POST, key: key, query: [("uploads", "")], headers: [("content-type", "application/octet-stream")])
        guard reply.status == 200 else { throw failure(reply, doing: "creating the multipart upload") }
        guard let r = try? XMLDecoder().decode(S3InitiateResult.self, from: Data(reply.text.utf8)) else {
            throw UploadError(.transient, "\(hostForErrors) answered CreateMultipartUpload with no UploadId")
        }
        return r.UploadId
    }

    /// `ListParts`, every page: the parts the server has.
    package func listParts(key: String, uploadID: String) throws(UploadError) -> [UploadRecord.Part] {
        var parts: [UploadRecord.Part] = []
        var marker = 0
        while true {
            var query = [("uploadId", uploadID), ("max-parts", "1000")]
            if marker > 0 { query.append(("part-number-marker", String(marker))) }
            let reply = try call(.GET, key: key, query: query)
            guard reply.status == 200 else { throw failure(reply, doing: "listing the uploaded parts") }
            guard let page = try? XMLDecoder().decode(S3ListPartsResult.self, from: Data(reply.text.utf8)) else {
                throw UploadError(.transient, "\(hostForErrors) answered ListParts with XML this client cannot read")
            }
            for p in page.Part ?? [] {
                let hex = p.ETag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                parts.append(.init(number: p.PartNumber, etag: p.ETag, size: p.Size, md5: hex.count == 32 ? hex.lowercased() : nil))
            }
            guard page.IsTruncated == true, let next = page.NextPartNumberMarker, next > marker else { return parts }
            marker = next
        }
    }

    /// Starts `UploadPart` for `body` with its MD5 (the server checks `Content-MD5`).
    package func startUploadPart(key: String, uploadID: String, number: Int, body: [UInt8], md5: [UInt8]) -> PendingHTTPRequest {
        start(.PUT, key: key, query: [("partNumber", String(number)), ("uploadId", uploadID)],
              headers: [("content-md5", Data(md5).base64EncodedString()), ("content-length", String(body.count))],
              body: .bytes(body), payloadHash: "UNSIGNED-PAYLOAD")
    }

    /// `CompleteMultipartUpload`: the object's ETag.
    package func complete(key: String, uploadID: String, parts: [UploadRecord.Part]) throws(UploadError) -> String? {
        let request = S3CompleteRequest(Part: parts.sorted { $0.number < $1.number }.map { .init(PartNumber: $0.number, ETag: $0.etag) })
        guard let body = try? XMLEncoder().encode(request, withRootKey: "CompleteMultipartUpload") else {
            throw UploadError(.permanent, "cannot encode CompleteMultipartUpload")
        }
        let reply = try call(.POST, key: key, query: [("uploadId", uploadID)], headers: [("content-type", "application/xml")], body: body)
        // S3 may answer 200 and put an error in the body.
        guard reply.status == 200, S3ErrorBody.code(reply.text) == nil else {
            if S3ErrorBody.code(reply.text) == "InternalError" { throw UploadError(.transient, "completing the upload: \(hostForErrors) had an internal error") }
            throw failure(reply, doing: "completing the upload")
        }
        return (try? XMLDecoder().decode(S3CompleteResult.self, from: Data(reply.text.utf8)))?.ETag
    }

    /// `AbortMultipartUpload` (an upload the server no longer knows counts as aborted).
    package func abort(key: String, uploadID: String) throws(UploadError) {
        let reply = try call(.DELETE, key: key, query: [("uploadId", uploadID)])
        guard (200..<300).contains(reply.status) || reply.status == 404 else { throw failure(reply, doing: "aborting the upload") }
    }

    /// `HeadBucket` within `seconds`: returns when the bucket exists and the credentials may use
    /// it; throws `permanent` (no such bucket), `credentials` (403) or `transient` (unreachable).
    package func checkBucket(within seconds: Int) throws(UploadError) {
        let reply = try transport.wait(start(.HEAD, key: nil, timeout: seconds), host: hostForErrors)
        switch reply.status {
        case 200..<300: return
        case 404: throw UploadError(.permanent, "bucket '\(bucket)' does not exist at \(hostForErrors): create it or fix the target")
        case 401, 403: throw UploadError(.credentials, "\(hostForErrors) refused the service's S3 credentials for bucket '\(bucket)' (HTTP \(reply.status)): "
                                         + "check them (docs/UPLOADS.md, Credentials)")
        default: throw failure(reply, doing: "checking bucket '\(bucket)'")
        }
    }

    /// `HeadObject`: size and ETag, or nil when there is no such object.
    package func head(key: String) throws(UploadError) -> (size: Int64, etag: String?)? {
        let reply = try call(.HEAD, key: key)
        if reply.status == 404 { return nil }
        guard reply.status == 200 else { throw failure(reply, doing: "checking the object") }
        return (Int64(reply.header("Content-Length") ?? "") ?? -1, reply.header("ETag"))
    }

    /// The multipart ETag S3 computes: MD5 of the parts' MD5s, `-N`; nil unless every part's MD5 is known.
    package static func multipartETag(_ parts: [UploadRecord.Part]) -> String? {
        var all = Data()
        for p in parts.sorted(by: { $0.number < $1.number }) {
            guard let md5 = p.md5, let bytes = Data(hex: md5) else { return nil }
            all.append(bytes)
        }
        return "\"\(SigV4Signer.hex(MD5.hash(data: all)))-\(parts.count)\""
    }
}

extension Data {
    /// Bytes of a hex string; nil when it is not one.
    init?(hex: String) {
        var d = Data()
        var it = hex.makeIterator()
        while let a = it.next() {
            guard let b = it.next(), let v = UInt8(String([a, b]), radix: 16) else { return nil }
            d.append(v)
        }
        self = d
    }
}
