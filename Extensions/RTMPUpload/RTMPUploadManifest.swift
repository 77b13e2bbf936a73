import RecordKit

/// The RTMP handler as an extension: its manifest (`Extensions/RTMPUpload/manifest.json`,
/// embedded at build time) and its handler made from the manifest's setup keys. The extension
/// catalog lists it as the built-in extension `rtmp`.
public enum RTMPUploadManifest {
    /// The manifest's JSON text.
    public static var json: [UInt8] { PackageResources.manifest_json }

    /// The Swift target that implements the extension, as the manifest's `entry` names it.
    public static let target = "RTMPUploadExtension"

    /// A handler for setup values already checked against the manifest (`url`, required), with
    /// the streaming defaults. The URL itself is checked by the handler's `broadcastStarted`,
    /// which refuses a malformed one (the message shows it with the key masked).
    public static func handler(setup: SetupInfo) throws(BroadcastError) -> RTMPUploadHandler {
        RTMPUploadHandler(options: RTMPOutputOptions(url: setup["url"] ?? ""))
    }
}
