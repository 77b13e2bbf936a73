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
    /// The arguments the capture started with: a later `start` joins it only with the same capture options.
    let arguments: StartArguments
    /// Every output name this capture has had (attached outputs never reuse one).
    var outputNames: Set<String>
    /// The `on-saved` commands of outputs that joined with their own (by output name).
    var outputHooks: [String: SavedFileHooks] = [:]

    init(id: String, journal: SessionJournal, session: RecordingSession, hooks: SavedFileHooks, upload: UploadOptions? = nil,
         uploadReplays: UploadOptions? = nil, arguments: StartArguments = StartArguments()) {
        self.arguments = arguments
        self.outputNames = Set(journal.handlers.map(\.name))
        self.id = id
        self.journal = journal
        self.session = session
        self.hooks = hooks
        self.upload = upload
        self.uploadReplays = uploadReplays
    }
}
