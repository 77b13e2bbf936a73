/// Why a transfer step failed, and what the queue does about it. The message never holds a
/// secret (no key, token, signature or presigned query): it is shown in status, events and logs.
package struct UploadError: Error, Sendable, CustomStringConvertible {
    /// What the queue does with a failure.
    package enum Kind: String, Sendable {
        /// Network loss, a refused connection, 5xx, 429: try again after a back-off.
        case transient
        /// The server answered no for good (403, 404 bucket, 400): the upload fails.
        case permanent
        /// The server no longer knows the upload (NoSuchUpload, tus 404/410): start over.
        case forgotten
        /// The local file changed or vanished: the upload fails.
        case fileChanged
        /// No usable credentials.
        case credentials
        /// The target or an option is malformed.
        case badTarget
        /// Cancelled by the user.
        case cancelled
        /// Paused by the user: stop after the parts in flight, resume later.
        case paused
    }

    package var kind: Kind
    package var message: String
    /// Seconds the server asked to wait (`Retry-After`), if it did.
    package var retryAfter: Double?

    /// An error of `kind`.
    package init(_ kind: Kind, _ message: String, retryAfter: Double? = nil) {
        self.kind = kind
        self.message = message
        self.retryAfter = retryAfter
    }

    package var description: String { message }
}
