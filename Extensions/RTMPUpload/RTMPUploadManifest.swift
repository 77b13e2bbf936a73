import RecordKit
import RecordKitMedia

/// The RTMP handler as an extension: its manifest (`Extensions/RTMPUpload/manifest.json`,
/// embedded at build time) and its handler made from the manifest's setup keys. The extension
/// catalog lists it as the built-in extension `rtmp`.
package enum RTMPUploadManifest {
    /// The manifest's JSON text.
    package static var json: [UInt8] { PackageResources.manifest_json }

    /// The Swift target that implements the extension, as the manifest's `entry` names it.
    package static let target = "RTMPUploadExtension"

    /// A handler for setup values already checked against the manifest (`url`, required;
    /// `caFile`: the CA file for `rtmps://`, empty for the system's store), with the streaming
    /// defaults. The URL itself is checked by the handler's `broadcastStarted`,
    /// which refuses a malformed one (the message shows it with the key masked).
    ///
    /// The encoding choices (`preset`, `bitrate`, `keyframeInterval`, `encoder`, …; empty: the
    /// streaming defaults) are resolved for a stream: always H.264 and AAC, what FLV carries in
    /// this FFmpeg; a choice that cannot work is ``BroadcastError/Kind/invalidSetup``.
    package static func handler(setup: SetupInfo) throws(BroadcastError) -> RTMPUploadHandler {
        var options = RTMPOutputOptions(url: setup["url"] ?? "")
        if let caFile = setup["caFile"], !caFile.isEmpty { options.caFile = caFile }  // --rtmp-ca-file
        let choices = try EncodingChoices(setup: setup)
        if choices != EncodingChoices() {
            let resolved = try choices.checked(container: "flv", streaming: true)
            options.video = resolved.streamVideo
            options.audio = resolved.streamAudio
            options.note = resolved.notes.isEmpty ? nil : resolved.notes.joined(separator: "; ")
        }
        return RTMPUploadHandler(options: options)
    }
}

/// The SRT output as an extension (`srt`): the RTMP handler's sender with an ``SRTEndpoint``
/// (MPEG-TS over SRT, caller mode), its manifest `Extensions/RTMPUpload/srt-manifest.json`.
package enum SRTUploadManifest {
    /// The manifest's JSON text.
    package static var json: [UInt8] { PackageResources.srt_manifest_json }

    /// The Swift target that implements the extension.
    package static let target = "RTMPUploadExtension"

    /// A handler for setup values already checked against the manifest (`url`, required:
    /// `srt://HOST:PORT?…`), with the streaming defaults and the encoding choices resolved for
    /// MPEG-TS (H.264 and AAC); the URL is checked by the handler's `broadcastStarted`.
    package static func handler(setup: SetupInfo) throws(BroadcastError) -> RTMPUploadHandler {
        let url = setup["url"] ?? ""
        guard url.lowercased().hasPrefix("srt://") else {
            throw BroadcastError(.invalidSetup, "the srt extension takes srt://HOST:PORT?… URLs; use --rtmp for rtmp:// and rtmps://")
        }
        return try RTMPUploadManifest.handler(setup: setup)
    }
}
