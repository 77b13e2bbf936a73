import AsyncHTTPClient
import CShims
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A reply as the upload code reads it.
package struct HTTPReply: Sendable {
    package var status: Int
    package var headers: HTTPHeaders
    package var body: ByteBuffer?

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? { headers.first(name: name) }
    /// The body as text (for XML and error messages).
    package var text: String { body.map { String(buffer: $0) } ?? "" }
}

/// async-http-client behind a blocking call for the upload thread: requests are started on
/// NIO's event loops and waited for on the calling thread, which must be a thread of its own
/// (the upload thread), never an event loop or the cooperative pool. Redirects are not
/// followed (a presigned URL's signature is not sent on). Owns its client and its one event
/// loop thread (`rk-upload-nio`), which runs at the upload thread's low CPU and I/O priority
/// (nice 10, best-effort level 7) so that moving upload bytes never competes with capture and
/// encoding as an equal: call ``shutdown()``.
package final class HTTPTransport: Sendable {
    let client: HTTPClient
    private let group: MultiThreadedEventLoopGroup

    /// A transport with a 10 s connect and 120 s read timeout.
    package init() {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(120))
        configuration.redirectConfiguration = .disallow
        // One loop is plenty for the few parts in flight of one upload at a time.
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        for loop in group.makeIterator() {
            loop.execute {
                Thread.current.name = "rk-upload-nio"
                _ = cshim_lower_thread_priority(10, 7)
            }
        }
        client = HTTPClient(eventLoopGroup: group, configuration: configuration)
    }

    /// Shuts the client and its event loop down (blocking); the transport is unusable afterwards.
    package func shutdown() {
        try? client.syncShutdown()
        try? group.syncShutdownGracefully()
    }

    /// Starts a request; `deadline` (nil: the transport's timeouts only) bounds the whole of it.
    package func start(method: HTTPMethod, url: String, headers: [(String, String)], body: HTTPClient.Body?,
                       deadline: NIODeadline? = nil) -> EventLoopFuture<HTTPClient.Response> {
        do {
            let request = try HTTPClient.Request(url: url, method: method, headers: HTTPHeaders(headers), body: body)
            return client.execute(request: request, deadline: deadline)
        } catch {
            return client.eventLoopGroup.next().makeFailedFuture(error)
        }
    }

    /// Waits for `future` (blocking the upload thread) and turns a transport failure into a
    /// `transient` error naming `host` only; 5xx, 408 and 429 replies are `transient` too, with
    /// the server's `Retry-After` (seconds).
    package static func wait(_ future: EventLoopFuture<HTTPClient.Response>, host: String) throws(UploadError) -> HTTPReply {
        let response: HTTPClient.Response
        do {
            response = try future.wait()
        } catch {
            throw UploadError(.transient, "cannot reach \(host): \(describe(error))")
        }
        let reply = HTTPReply(status: Int(response.status.code), headers: response.headers, body: response.body)
        if reply.status >= 500 || reply.status == 429 || reply.status == 408 {
            let retry = reply.header("Retry-After").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            throw UploadError(.transient, "\(host) answered \(reply.status)\(S3ErrorBody.summary(reply.text))", retryAfter: retry)
        }
        return reply
    }

    /// Starts and waits.
    package func send(method: HTTPMethod, url: String, headers: [(String, String)], body: HTTPClient.Body?, host: String) throws(UploadError) -> HTTPReply {
        try Self.wait(start(method: method, url: url, headers: headers, body: body), host: host)
    }

    /// A short description of a transport error (no URL in it).
    static func describe(_ error: any Error) -> String {
        if let e = error as? HTTPClientError {
            if e == .connectTimeout { return "connection timed out" }
            if e == .readTimeout { return "no answer (read timed out)" }
            if e == .remoteConnectionClosed { return "the server closed the connection" }
            return "HTTP client error \(e)"
        }
        let text = "\(error)"
        if text.contains("Connection refused") { return "connection refused" }
        if text.contains("Connection reset") { return "connection reset" }
        if let r = text.range(of: "errno") { return String(text[..<r.lowerBound]).suffix(80).trimmingCharacters(in: .whitespaces) }
        return String(text.prefix(120))
    }
}
