/// A recording recovered after a crash, kill or power loss.
public struct RecoveredSession: Codable, Sendable, Equatable {
    /// The recording's id.
    public var id: String
    /// The playable file it became.
    public var path: String
    /// Its duration in seconds, when known.
    public var seconds: Double?
    /// When it was recovered (ISO 8601).
    public var recoveredAt: String

    /// Describes a recovered recording.
    public init(id: String, path: String, seconds: Double?, recoveredAt: String) {
        self.id = id
        self.path = path
        self.seconds = seconds
        self.recoveredAt = recoveredAt
    }
}
