/// The service's view of the recording in progress. `journal` and `endReason` are written
/// under the service's command lock (events hold no lock, but only write `endReason`, once).
final class ActiveRecording: @unchecked Sendable {
    let id: String
    var journal: SessionJournal
    let session: RecordingSession
    /// The recording's `on-saved` commands.
    let hooks: SavedFileHooks
    var endReason: String?

    init(id: String, journal: SessionJournal, session: RecordingSession, hooks: SavedFileHooks) {
        self.id = id
        self.journal = journal
        self.session = session
        self.hooks = hooks
    }
}

/// Lets the recorder's event callback, made before the recording exists, find it.
final class ActiveBox: @unchecked Sendable {
    var active: ActiveRecording?
}
