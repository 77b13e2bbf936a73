/// A recording recovered after a crash, kill or power loss, or one that left nothing to recover
/// (killed before its first fragment reached the file): then ``path`` is empty and ``nothing``
/// says why, so no interrupted recording is ever lost silently.
package struct RecoveredSession: Codable, Sendable, Equatable {
    /// The recording's id.
    package var id: String
    /// The playable file it became; empty when nothing could be recovered.
    package var path: String
    /// Why nothing was recovered (nil when ``path`` names a file).
    package var nothing: String?
    /// Its duration in seconds, when known.
    package var seconds: Double?
    /// When it was recovered (ISO 8601).
    package var recoveredAt: String

    /// Describes a recovered recording.
    package init(id: String, path: String, seconds: Double?, recoveredAt: String, nothing: String? = nil) {
        self.id = id
        self.path = path
        self.nothing = nothing
        self.seconds = seconds
        self.recoveredAt = recoveredAt
    }
}
