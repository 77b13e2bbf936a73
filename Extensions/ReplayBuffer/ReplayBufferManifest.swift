import RecordKit

/// The replay buffer as an extension: its manifest (`Extensions/ReplayBuffer/manifest.json`,
/// embedded at build time) and its handler made from the manifest's setup keys. The extension
/// catalog lists it as the built-in extension `replay-buffer`; `recordctl start --replay-buffer
/// SECONDS` requests it.
package enum ReplayBufferManifest {
    /// The manifest's JSON text.
    package static var json: [UInt8] { PackageResources.manifest_json }

    /// The Swift target that implements the extension, as the manifest's `entry` names it.
    package static let target = "ReplayBufferExtension"

    /// A handler for setup values already checked against the manifest: `seconds`,
    /// `max-megabytes`, `directory`. Throws ``BroadcastError/Kind/invalidSetup`` for values out
    /// of range.
    package static func handler(setup: SetupInfo) throws(BroadcastError) -> ReplayBufferHandler {
        var options = ReplayBufferOptions()
        if let text = setup["seconds"], !text.isEmpty {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
                throw BroadcastError(.invalidSetup, "replay-buffer seconds must be between 0 and 3600, got '\(text)'")
            }
            options.seconds = seconds
        }
        if let text = setup["max-megabytes"], !text.isEmpty {
            guard let megabytes = Int(text), megabytes >= 1, megabytes <= 65_536 else {
                throw BroadcastError(.invalidSetup, "replay-buffer max-megabytes must be between 1 and 65536, got '\(text)'")
            }
            options.maxBytes = megabytes * 1_048_576
        }
        if let directory = setup["directory"], !directory.isEmpty {
            guard directory.hasPrefix("/") else {
                throw BroadcastError(.invalidSetup, "replay-buffer directory must be an absolute path, got '\(directory)'")
            }
            options.directory = directory
        }
        return ReplayBufferHandler(options: options)
    }
}
