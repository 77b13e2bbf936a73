import RecordKit
import RecordKitMedia

/// The file handler as an extension: its manifest (`Extensions/FileUpload/manifest.json`,
/// embedded at build time) and its handler made from the manifest's setup keys. The extension
/// catalog lists it as the built-in extension `file`.
package enum FileUploadManifest {
    /// The manifest's JSON text.
    package static var json: [UInt8] { PackageResources.manifest_json }

    /// The Swift target that implements the extension, as the manifest's `entry` names it.
    package static let target = "FileUploadExtension"

    /// A handler for setup values already checked against the manifest: `path` (empty: the
    /// default location), `format` (`mp4`, `mkv`, or empty: from the path), `overwrite`, and the
    /// encoding choices (`videoCodec`, `encoder`, `preset`, `crf`, `bitrate`, `keyframeInterval`,
    /// `audioCodec`, `audioBitrate`; empty: the default), `splitEvery` (seconds) and `splitSize`
    /// (MB) for parts cut by themselves (``SplitPolicy``), `faststart` (`true`: an MP4's index
    /// first, ``FileOutputOptions/faststart``), checked by opening each chosen encoder
    /// once. Throws ``BroadcastError/Kind/invalidSetup`` for a format it does not write or a
    /// choice that cannot work (an encoder without its device, Opus in MP4, …).
    package static func handler(setup: SetupInfo) throws(BroadcastError) -> FileUploadHandler {
        let path = setup["path"].flatMap { $0.isEmpty ? nil : $0 }
        let container: FileOutputOptions.Container
        switch setup["format"]?.lowercased() ?? "" {
        case "": container = path?.lowercased().hasSuffix(".mkv") == true ? .mkv : .mp4
        case "mp4": container = .mp4
        case "mkv": container = .mkv
        case let other: throw BroadcastError(.invalidSetup, "format must be mp4 or mkv, got '\(other)'")
        }
        var options = FileOutputOptions(path: path, container: container, overwrite: setup["overwrite"] == "true")
        let choices = try EncodingChoices(setup: setup)
        if choices != EncodingChoices() {
            let resolved = try choices.checked(container: container.rawValue, streaming: false)
            options.video = resolved.fileVideo
            options.audio = resolved.fileAudio
        }
        // Without a quality of its own (a CRF) or another codec, the file records a stream's encode.
        options.sharesStreamEncode = choices.crf == nil && options.video.codec == .h264
        options.split = try SplitPolicy(setup: setup)
        options.faststart = setup["faststart"] == "true"
        return FileUploadHandler(options: options)
    }
}
