import RecordKit

/// The file handler as an extension: its manifest (`Extensions/FileUpload/manifest.json`,
/// embedded at build time) and its handler made from the manifest's setup keys. The extension
/// catalog lists it as the built-in extension `file`.
public enum FileUploadManifest {
    /// The manifest's JSON text.
    public static var json: [UInt8] { PackageResources.manifest_json }

    /// The Swift target that implements the extension, as the manifest's `entry` names it.
    public static let target = "FileUploadExtension"

    /// A handler for setup values already checked against the manifest: `path` (empty: the
    /// default location), `format` (`mp4`, `mkv`, or empty: from the path) and `overwrite`.
    /// Throws ``BroadcastError/Kind/invalidSetup`` for a format it does not write.
    public static func handler(setup: SetupInfo) throws(BroadcastError) -> FileUploadHandler {
        let path = setup["path"].flatMap { $0.isEmpty ? nil : $0 }
        let container: FileOutputOptions.Container
        switch setup["format"]?.lowercased() ?? "" {
        case "": container = path?.lowercased().hasSuffix(".mkv") == true ? .mkv : .mp4
        case "mp4": container = .mp4
        case "mkv": container = .mkv
        case let other: throw BroadcastError(.invalidSetup, "format must be mp4 or mkv, got '\(other)'")
        }
        return FileUploadHandler(options: FileOutputOptions(path: path, container: container, overwrite: setup["overwrite"] == "true"))
    }
}
