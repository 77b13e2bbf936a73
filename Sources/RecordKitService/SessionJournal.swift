import Foundation

/// The small journal every recording keeps in its session directory, rewritten atomically on
/// each state change, so a service that was killed can tell what was going on.
public struct SessionJournal: Codable, Sendable, Equatable {
    /// The recording's id.
    public var id: String
    /// The lifecycle state last reached.
    public var state: String
    /// Where the result goes at stop.
    public var destination: String
    /// The file written while recording (inside the session directory).
    public var workingFile: String
    /// "mp4" or "mkv".
    public var container: String
    /// When the recording started (ISO 8601).
    public var startedAt: String
    /// The pid of the service that owns it.
    public var pid: Int32
}

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
}
