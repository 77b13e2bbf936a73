/// One upload as `uploads` lists it and `upload-*` events carry it. Secret-free: the target is
/// redacted (no presigned query), the object URL has no query.
public struct UploadStatus: Codable, Sendable {
    /// The upload's id (`recordctl uploads pause ID`).
    public var id: String
    /// The local file.
    public var path: String
    /// The target, redacted.
    public var target: String
    /// The S3 object key, for S3 targets.
    public var key: String?
    /// `queued`, `running`, `paused`, `completed`, `failed`, `cancelled`.
    public var state: String
    /// Bytes the server confirmed.
    public var bytesDone: Int64
    /// The file's size in bytes.
    public var bytesTotal: Int64
    /// Bytes per second over the current run (running only).
    public var bytesPerSecond: Double?
    /// Seconds left at that rate.
    public var secondsLeft: Double?
    /// Failed attempts in a row.
    public var attempts: Int
    /// Times the server forgot the upload and it started over.
    public var restarts: Int
    /// The last error (the reason, for `failed`).
    public var lastError: String?
    /// Completed: the object's URL and ETag, and whether size and checksum were checked.
    public var objectURL: String?
    public var etag: String?
    public var verified: Bool
    /// Completed with `--delete-after-upload`: whether the local file was deleted.
    public var deleted: Bool
    /// The recording the file belongs to.
    public var recordingId: String?
    /// When it was queued and ended (ISO 8601).
    public var createdAt: String
    public var finishedAt: String?

    /// A status from its parts.
    public init(id: String, path: String, target: String, key: String?, state: String, bytesDone: Int64, bytesTotal: Int64,
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
    public var isFinal: Bool { state == "completed" || state == "failed" || state == "cancelled" }
}
