/// What kind of file became final, as hooks receive it (`$2`, `RECORDKIT_SAVED_KIND`).
package enum SavedFileKind: String, Sendable, CaseIterable {
    /// The recording's file, finalized at stop (or its last part).
    case recording
    /// A part closed by `recordctl split`, `--split-every` or `--split-size`.
    case part
    /// A replay clip written by `save-replay`.
    case replay
    /// A file of the recording whose upload completed (docs/UPLOADS.md, "Hooks"): `$1` is the
    /// local path (gone with `--delete-after-upload`), `RECORDKIT_UPLOAD_URL` the object's URL.
    case upload

    /// The kind a service event announces, if it announces a final file: `recording-saved`,
    /// `file-part`, `replay-saved`, `upload-completed`.
    package init?(eventKind: String) {
        switch eventKind {
        case "recording-saved": self = .recording
        case "file-part": self = .part
        case "replay-saved": self = .replay
        case "upload-completed": self = .upload
        default: return nil
        }
    }
}
