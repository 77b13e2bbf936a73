/// What a client asks to upload: a file, where, and how (a value from the control request).
package struct UploadRequest: Sendable {
    package var path: String
    package var target: UploadTarget
    package var s3: S3Options
    package var recordingId: String?
    package var deleteAfterUpload: Bool
    /// The object name template (nil: ``ObjectNameTemplate/defaultTemplate``).
    package var nameTemplate: String?
    /// Preferred part size in bytes (nil: 16 MiB).
    package var partSize: Int64?
    /// The `on-saved` commands of the recording the file belongs to, and their time bound: kept
    /// with the upload so that they still run for it when a restarted service completes it.
    package var hookCommands: [String]
    package var hookTimeout: Double?

    package init(path: String, target: UploadTarget, s3: S3Options = S3Options(), recordingId: String? = nil,
                 deleteAfterUpload: Bool = false, nameTemplate: String? = nil, partSize: Int64? = nil,
                 hookCommands: [String] = [], hookTimeout: Double? = nil) {
        self.path = path
        self.target = target
        self.s3 = s3
        self.recordingId = recordingId
        self.deleteAfterUpload = deleteAfterUpload
        self.nameTemplate = nameTemplate
        self.partSize = partSize
        self.hookCommands = hookCommands
        self.hookTimeout = hookTimeout
    }
}

/// Something the queue tells its owner (published as an event by the service).
package struct UploadEvent: Sendable {
    /// `upload-queued`, `upload-progress`, `upload-completed`, `upload-failed`, `upload-paused`,
    /// `upload-cancelled`, `upload-restarted`, `upload-retrying`.
    package var kind: String
    package var record: UploadRecord
    /// What happened, for people (never a secret).
    package var message: String
}
