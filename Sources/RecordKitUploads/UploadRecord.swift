/// One upload as the queue keeps it, in its journal file (``UploadJournal``): enough to resume
/// after a restart or `kill -9` by asking the server, and to show in `recordctl uploads`.
/// Value type; the presigned URL (in ``target``) is in the journal only, which is private to
/// the user, and never shown (``UploadTarget/redacted``).
package struct UploadRecord: Codable, Sendable {
    /// The states of an upload.
    package enum State: String, Codable, Sendable {
        case queued, running, paused, completed, failed, cancelled
        /// Whether the upload is over.
        package var isFinal: Bool { self == .completed || self == .failed || self == .cancelled }
    }

    /// One part (S3) the server confirmed.
    package struct Part: Codable, Sendable, Equatable {
        package var number: Int
        package var etag: String
        package var size: Int64
        /// The part's MD5 (hex) as sent in `Content-MD5`; nil for a part only known from ListParts.
        package var md5: String?
    }

    package var id: String
    package var path: String
    package var target: UploadTarget
    package var s3: S3Options
    package var key: String?
    package var recordingId: String?
    package var deleteAfterUpload: Bool
    package var identity: FileIdentity
    package var state: State
    package var createdAt: String
    package var finishedAt: String?

    /// The S3 multipart upload id, once created.
    package var uploadID: String?
    /// The tus upload URL, once created.
    package var tusURL: String?
    package var partSize: Int64
    package var parts: [Part] = []
    package var bytesDone: Int64 = 0
    /// Attempts that failed in a row (reset by progress).
    package var attempts: Int = 0
    /// Times the server forgot the upload and it started over.
    package var restarts: Int = 0
    package var lastError: String?
    /// After completion: the object's URL (no query) and ETag; whether size and checksum were checked.
    package var objectURL: String?
    package var etag: String?
    package var verified: Bool = false
    package var deleted: Bool = false
    /// The recording's `on-saved` commands and their bound (``UploadRequest/hookCommands``); nil
    /// when it had none, and in journals written before they were kept.
    package var hookCommands: [String]?
    package var hookTimeout: Double?
}
