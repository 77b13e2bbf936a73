/// One upload as `uploads` lists it and `upload-*` events carry it. Secret-free: the target is
/// redacted (no presigned query), the object URL has no query.
package struct UploadStatus: Codable, Sendable {
    /// The upload's id (`recordctl uploads pause ID`).
    package var id: String
    /// The local file.
    package var path: String
    /// The target, redacted.
    package var target: String
    /// The S3 object key, for S3 targets.
    package var key: String?
    /// `queued`, `running`, `paused`, `completed`, `failed`, `cancelled`.
    package var state: String
    /// Bytes the server confirmed.
    package var bytesDone: Int64
    /// The file's size in bytes.
    package var bytesTotal: Int64
    /// Bytes per second over the current run (running only).
    package var bytesPerSecond: Double?
    /// Seconds left at that rate.
    package var secondsLeft: Double?
    /// Failed attempts in a row.
    package var attempts: Int
    /// Times the server forgot the upload and it started over.
    package var restarts: Int
    /// The last error (the reason, for `failed`).
    package var lastError: String?
    /// Completed: the object's URL and ETag, and whether size and checksum were checked.
    package var objectURL: String?
    package var etag: String?
    package var verified: Bool
    /// Completed with `--delete-after-upload`: whether the local file was deleted.
    package var deleted: Bool
    /// The recording the file belongs to.
    package var recordingId: String?
    /// When it was queued and ended (ISO 8601).
    package var createdAt: String
    package var finishedAt: String?

    /// A status from its parts.
    package init(id: String, path: String, target: String, key: String?, state: String, bytesDone: Int64, bytesTotal: Int64,
                bytesPerSecond: Double?, secondsLeft: Double?, attempts: Int, restarts: Int, lastError: String?, objectURL: String?,
                etag: String?, verified: Bool, deleted: Bool, recordingId: String?, createdAt: String, finishedAt: String?) {
        self.id = id
        self.path = path
        self.target = target
        self.key = key
        self.state = state
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.bytesPerSecond = bytesPerSecond
        self.secondsLeft = secondsLeft
        self.attempts = attempts
        self.restarts = restarts
        self.lastError = lastError
        self.objectURL = objectURL
        self.etag = etag
        self.verified = verified
        self.deleted = deleted
        self.recordingId = recordingId
        self.createdAt = createdAt
        self.finishedAt = finishedAt
    }

    /// Whether the upload is over.
    package var isFinal: Bool { state == "completed" || state == "failed" || state == "cancelled" }
}
