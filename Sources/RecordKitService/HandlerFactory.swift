import FileUploadExtension
import RecordKit
import RecordKitPipeline
import RTMPUploadExtension

/// Builds the handlers a recording feeds from the user's options.
public enum HandlerFactory {
    /// The file handler and one handler per RTMP endpoint (`rtmp-1`, `rtmp-2`, … in the order
    /// given), each with the streaming defaults (``RTMPOutputOptions``).
    ///
    /// One encode: when there are endpoints and the file asks for the default video quality,
    /// the file records the stream's video encode (as OBS's "same as stream" and FFmpeg's
    /// `tee` do), so the pipeline runs one H.264 encoder for all of them; the file keeps its two
    /// audio tracks. A file given other video settings keeps them (a second, file-only encode).
    /// URLs are checked when the recording starts: a malformed one is refused by its handler
    /// with a message, without touching the file or the other endpoints.
    public static func registrations(file: FileOutputOptions?, rtmp: [String]) -> [HandlerRegistration] {
        let endpoints = rtmp.map { RTMPOutputOptions(url: $0) }
        var result: [HandlerRegistration] = []
        if var file {
            if let stream = endpoints.first, file.video == .fileDefault { file.video = stream.video }
            result.append(HandlerRegistration(name: "file", handler: FileUploadHandler(options: file)))
        }
        for (index, options) in endpoints.enumerated() {
            result.append(HandlerRegistration(name: "rtmp-\(index + 1)", handler: RTMPUploadHandler(options: options)))
        }
        return result
    }

    /// Checks an RTMP URL without connecting; throws a message that shows the URL masked.
    public static func validateRTMP(_ url: String) throws(BroadcastError) {
        _ = try RTMPEndpoint(parsing: url)
    }
}
