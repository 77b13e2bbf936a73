import CCurl
import Foundation
import Glibc
import Synchronization

/// The methods the upload protocols use.
package enum HTTPMethod: String, Sendable {
    case GET, HEAD, PUT, POST, PATCH, DELETE
}

/// A request's body.
package enum HTTPRequestBody {
    /// Bytes in memory (an S3 part, a tus piece, an XML document).
    case bytes([UInt8])
    /// `length` bytes produced on the upload thread while the request is sent: `fill` puts the
    /// next bytes in its buffer and returns how many (0 only at the end); what it throws ends
    /// the request with that error.
    case stream(length: Int64, fill: (UnsafeMutableRawBufferPointer) throws(UploadError) -> Int)
}

/// A reply as the upload code reads it.
package struct HTTPReply: Sendable {
    package var status: Int
    /// Header fields in the order they came (of the final response, not of a `100 Continue`).
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
    /// The body as text (for XML and error messages).
    package var text: String { String(decoding: body, as: UTF8.self) }
}

/// The system's libcurl behind blocking calls for the upload thread. Requests are started with
/// ``start(_:url:headers:body:timeout:)`` (several may be in flight: S3 parts) and moved by
/// ``wait(_:host:)`` on the calling thread, which must be a thread of its own (the upload
/// thread, at low CPU and I/O priority), never the cooperative pool: there is no event-loop
/// thread, and a streamed body is read on that same thread. One libcurl multi handle keeps
/// connections alive between requests. Redirects are not followed (a presigned URL's signature
/// is not sent on); `Expect: 100-continue` is never sent.
///
/// Why libcurl and not async-http-client: the same streaming, keep-alive and TLS (the system's
/// OpenSSL and CA store) without compiling SwiftNIO's BoringSSL, HTTP/2 and extras (about a
/// third of a clean build on a 2-core machine), and bodies of known length streamed from the
/// calling thread. Not FoundationNetworking's URLSession (itself on libcurl): it sends a
/// streamed body chunked, which S3 refuses for a presigned PUT, and its request timeout covers
/// the whole transfer rather than a silence.
package final class HTTPTransport: Sendable {
    /// No connection within this many seconds fails the request.
    static let connectTimeout = 10
    /// No byte sent or received for this many seconds fails the request.
    static let idleTimeout = 120

    private let multi: Mutex<CurlMulti>

    /// A transport with a 10 s connect and 120 s idle timeout.
    package init() {
        multi = Mutex(CurlMulti())
    }

    /// Ends every request in flight and frees libcurl's handles; the transport is unusable afterwards.
    package func shutdown() {
        multi.withLock { $0.close() }
    }

    /// Starts a request; `timeout` (seconds; nil: the idle timeout only) bounds the whole of it.
    /// Nothing moves until ``wait(_:host:)`` is called (for this request or another one).
    package func start(_ method: HTTPMethod, url: String, headers: [(String, String)], body: HTTPRequestBody?,
                       timeout: Int? = nil) -> PendingHTTPRequest {
        let request = PendingHTTPRequest(method: method, headers: headers, body: body)
        multi.withLock { $0.add(request, url: url, timeout: timeout) }
        return request
    }

    /// Moves every request in flight until `request` has ended (blocking), then turns a
    /// transport failure into a `transient` error naming `host` only; 5xx, 408 and 429 replies
    /// are `transient` too, with the server's `Retry-After` (seconds). An error thrown by a
    /// streamed body's `fill` is thrown as it is.
    package func wait(_ request: PendingHTTPRequest, host: String) throws(UploadError) -> HTTPReply {
        multi.withLock { $0.run(until: request) }
        let outcome = request.outcome
        if let error = outcome.bodyError { throw error }
        guard outcome.code == CURLE_OK else {
            throw UploadError(.transient, "cannot reach \(host): \(Self.describe(outcome.code, osErrno: outcome.osErrno, detail: outcome.detail))")
        }
        let reply = HTTPReply(status: outcome.status, headers: outcome.headers, body: outcome.body)
        if reply.status >= 500 || reply.status == 429 || reply.status == 408 {
            let retry = reply.header("Retry-After").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            throw UploadError(.transient, "\(host) answered \(reply.status)\(S3ErrorBody.summary(reply.text))", retryAfter: retry)
        }
        return reply
    }

    /// Starts and waits.
    package func send(_ method: HTTPMethod, url: String, headers: [(String, String)], body: HTTPRequestBody?, host: String) throws(UploadError) -> HTTPReply {
        try wait(start(method, url: url, headers: headers, body: body), host: host)
    }

    /// A short description of a transport failure. libcurl's own message names the host and
    /// may one day name more, so it is only matched, never shown (a presigned URL's query is a
    /// credential).
    static func describe(_ code: CURLcode, osErrno: Int32, detail: String) -> String {
        switch osErrno {
        case ECONNREFUSED: return "connection refused"
        case ECONNRESET, EPIPE: return "connection reset"
        case ENETUNREACH, EHOSTUNREACH: return "network unreachable"
        default: break
        }
        switch code {
        case CURLE_COULDNT_CONNECT:
            return osErrno == ETIMEDOUT ? "connection timed out" : "cannot connect"
        case CURLE_OPERATION_TIMEDOUT:
            if detail.contains("Connection timed out") || detail.contains("Resolving timed out") { return "connection timed out" }
            if detail.contains("too slow") { return "no answer (read timed out)" }
            return "no answer in the time allowed"
        case CURLE_COULDNT_RESOLVE_HOST: return "cannot resolve the host name"
        case CURLE_GOT_NOTHING: return "the server closed the connection"
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR: return "the connection broke"
        case CURLE_PEER_FAILED_VERIFICATION: return "the server's TLS certificate is not trusted"
        case CURLE_SSL_CONNECT_ERROR: return "the TLS handshake failed"
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT: return "not an http or https URL"
        default: return String(cString: curl_easy_strerror(code))
        }
    }
}
