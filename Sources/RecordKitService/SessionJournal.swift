import Foundation

/// The small journal every recording keeps in its session directory, rewritten atomically on
/// each state change, so a service that was killed can tell what was going on and whom to ask
/// to recover what.
package struct SessionJournal: Codable, Sendable, Equatable {
    /// One handler of the recording.
    package struct Handler: Codable, Sendable, Equatable {
        /// Its registration name ("file", "rtmp-1", …).
        package var name: String
        /// The extension it came from, whose recovery hook gets its directory after a crash.
        package var `extension`: String
        /// Its working directory, if it has one.
        package var directory: String?

        /// Describes a handler.
        package init(name: String, extension: String, directory: String?) {
            self.name = name
            self.extension = `extension`
            self.directory = directory
        }
    }

    /// The recording's id.
    package var id: String
    /// The lifecycle state last reached.
    package var state: String
    /// When the recording started (ISO 8601).
    package var startedAt: String
    /// The pid of the service that owns it.
    package var pid: Int32
    /// Its handlers.
    package var handlers: [Handler]
}
