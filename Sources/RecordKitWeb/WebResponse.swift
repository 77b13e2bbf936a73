/// What a route answers: a status, header fields, and a body of bytes or a file.
///
/// A file body is served by the server with HTTP Range (``ByteRange``): 206 for one
/// satisfiable range, 416 with `Content-Range: bytes */size` for any unsatisfiable or malformed
/// one, 200 with the whole file otherwise; it is sent from the file (sendfile), never read whole
/// into memory.
package struct WebResponse: Sendable {
    /// What follows the head.
    package enum Body: Sendable {
        /// These bytes.
        case bytes([UInt8])
        /// The file at `path` (opened when the response is sent; 404 if it cannot be).
        case file(path: String)
    }

    /// The status code (200, 404, …).
    package var status: Int
    /// Header fields to send; the server adds `Content-Length`, `Connection` and, for files,
    /// `Accept-Ranges` and `Content-Range`.
    package var headers: [(name: String, value: String)]
    /// The body.
    package var body: Body

    /// A response of `status`, `headers` and `body`.
    package init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain` response.
    package static func text(_ status: Int, _ message: String) -> WebResponse {
        WebResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")],
                    body: .bytes(Array(message.utf8)))
    }

    /// A response with the file at `path` as its body, Range honoured.
    package static func file(_ path: String, contentType: String, headers: [(name: String, value: String)] = []) -> WebResponse {
        WebResponse(status: 200, headers: [("Content-Type", contentType)] + headers, body: .file(path: path))
    }

    /// Adds a header field.
    package mutating func addHeader(_ name: String, _ value: String) {
        headers.append((name, value))
    }
}
