import Foundation

/// The small journal every recording keeps in its session directory, rewritten atomically on
/// each state change, so a service that was killed can tell what was going on and whom to ask
/// to recover what.
public struct SessionJournal: Codable, Sendable, Equatable {
    /// One handler of the recording.
    public struct Handler: Codable, Sendable, Equatable {
        /// Its registration name ("file", "rtmp-1", …).
        public var name: String
        /// The extension it came from, whose recovery hook gets its directory after a crash.
        public var `extension`: String
        /// Its working directory, if it has one.
        public var directory: String?

        /// Describes a handler.
        public init(name: String, extension: String, directory: String?) {
            self.name = name
            self.extension = `extension`
            self.directory = directory
        }
    }

    /// The recording's id.
    public var id: String
    /// The lifecycle state last reached.
    public var state: String
    /// When the recording started (ISO 8601).
    public var startedAt: String
    /// The pid of the service that owns it.
    public var pid: Int32
    /// Its handlers.
    public var handlers: [Handler]
}
