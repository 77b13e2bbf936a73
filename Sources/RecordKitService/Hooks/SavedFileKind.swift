/// What kind of file became final, as hooks receive it (`$2`, `RECORDKIT_SAVED_KIND`).
public enum SavedFileKind: String, Sendable, CaseIterable {
    /// The recording's file, finalized at stop (or its last part).
    case recording
    /// A part closed by `recordctl split`, `--split-every` or `--split-size`.
    case part
    /// A replay clip written by `save-replay`.
    case replay

    /// The kind a service event announces, if it announces a final file: `recording-saved`,
    /// `file-part`, `replay-saved`.
    public init?(eventKind: String) {
        switch eventKind {
        case "recording-saved": self = .recording
        case "file-part": self = .part
        case "replay-saved": self = .replay
        default: return nil
        }
    }
}
