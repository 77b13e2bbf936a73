import RecordKit

/// The preview as an extension: its manifest (`Extensions/Preview/manifest.json`, embedded at
/// build time) and its handler made from the manifest's setup keys. The catalog lists it as the
/// built-in extension `preview`; `recordctl start --preview` requests it.
package enum PreviewManifest {
    /// The manifest's JSON text.
    package static var json: [UInt8] { PackageResources.manifest_json }

    /// The Swift target that implements the extension, as the manifest's `entry` names it.
    package static let target = "PreviewExtension"

    /// A handler for setup values already checked against the manifest: `port` (0...65535).
    package static func handler(setup: SetupInfo) throws(BroadcastError) -> PreviewHandler {
        var options = PreviewOptions()
        if let text = setup["port"], !text.isEmpty {
            guard let port = UInt16(text) else {
                throw BroadcastError(.invalidSetup, "preview port must be between 0 and 65535, got '\(text)'")
            }
            options.port = port
        }
        return PreviewHandler(options: options)
    }
}
