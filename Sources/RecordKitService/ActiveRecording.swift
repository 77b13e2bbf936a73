import RecordKitControl

/// The service's view of the recording in progress. `journal` and `endReason` are written
/// under the service's command lock (events hold no lock, but only write `endReason`, once).
final class ActiveRecording: @unchecked Sendable {
    let id: String
    var journal: SessionJournal
    let session: RecordingSession
    /// The recording's `on-saved` commands.
    let hooks: SavedFileHooks
    var endReason: String?
    /// `start --upload`: where the recording and each split part go (docs/UPLOADS.md).
    let upload: UploadOptions?
    /// Where replay clips go without `save-replay --upload` (config `[uploads] replays`).
    let uploadReplays: UploadOptions?

    init(id: String, journal: SessionJournal, session: RecordingSession, hooks: SavedFileHooks, upload: UploadOptions? = nil,
         uploadReplays: UploadOptions? = nil) {
        self.id = id
        self.journal = journal
        self.session = session
        self.hooks = hooks
        self.upload = upload
        self.uploadReplays = uploadReplays
    }
}
