import FileUploadExtension
import RecordKitMedia
import RecordKitPipeline
import RTMPUploadExtension

extension HandlerFactory {
    /// ``registrations(file:rtmp:)`` with the user's encoding choices applied: the file gets
    /// ``ResolvedEncoding/fileVideo`` and ``ResolvedEncoding/fileAudio``, each RTMP endpoint the
    /// stream settings. When the file shares the stream's encode, one encoder serves them all.
    public static func registrations(file: FileOutputOptions?, rtmp: [String], encoding: ResolvedEncoding) -> [HandlerRegistration] {
        var result: [HandlerRegistration] = []
        if var file {
            file.video = encoding.fileVideo
            file.audio = encoding.fileAudio
            result.append(HandlerRegistration(name: "file", handler: FileUploadHandler(options: file)))
        }
        for (index, url) in rtmp.enumerated() {
            let options = RTMPOutputOptions(url: url, video: encoding.streamVideo, audio: encoding.streamAudio)
            result.append(HandlerRegistration(name: "rtmp-\(index + 1)", handler: RTMPUploadHandler(options: options)))
        }
        return result
    }
}
