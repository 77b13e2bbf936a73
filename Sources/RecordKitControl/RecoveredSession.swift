/// A recording recovered after a crash, kill or power loss, or one that left nothing to recover
/// (killed before its first fragment reached the file): then ``path`` is empty and ``nothing``
/// says why, so no interrupted recording is ever lost silently.
public struct RecoveredSession: Codable, Sendable, Equatable {
    /// The recording's id.
    public var id: String
    /// The playable file it became; empty when nothing could be recovered.
    public var path: String
    /// Why nothing was recovered (nil when ``path`` names a file).
    public var nothing: String?
    /// Its duration in seconds, when known.
    public var seconds: Double?
    /// When it was recovered (ISO 8601).
    public var recoveredAt: String

    /// Describes a recovered recording.
    public init(id: String, path: String, seconds: Double?, recoveredAt: String, nothing: String? = nil) {
        self.id = id
        self.path = path
        self.nothing = nothing
        self.seconds = seconds
        self.recoveredAt = recoveredAt
    }
}
