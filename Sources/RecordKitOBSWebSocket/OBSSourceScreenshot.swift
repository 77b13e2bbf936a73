import Foundation
import RecordKitControl

/// `GetSourceScreenshot` and `SaveSourceScreenshot` of the one source RecordKit has, the
/// recorded screen (`sourceName` "Screen"): the service's `screenshot` request (the newest
/// picture the recording's encoder was given, no second capture), answered as OBS does: a
/// `data:image/FORMAT;base64,…` URI, or the file written at `imageFilePath`.
///
/// Threading: any thread; blocks for the encode (tens of milliseconds at 1080p).
enum OBSSourceScreenshot {
    /// The source's name.
    static let sourceName = "Screen"
    /// GetVersion's `supportedImageFormats`.
    static let formats = ["png", "jpg", "jpeg"]

    /// The answer to `requestType` with `data`; `screenshot` sends the service's request.
    static func answer(_ requestType: String, _ data: OBSValue?,
                       screenshot: (CommandOptions) -> Result<ControlResult, ControlError>) -> OBSRequestResult {
        guard let name = data?["sourceName"] ?? data?["sourceUuid"] else { return .failure(.missingRequestField, "sourceName is required") }
        guard let source = name.string else { return .failure(.invalidRequestFieldType, "sourceName must be a string") }
        guard source == sourceName else { return .failure(.resourceNotFound, "no source named \(source): RecordKit's one source is \"\(sourceName)\", the recorded screen") }
        guard let formatValue = data?["imageFormat"] else { return .failure(.missingRequestField, "imageFormat is required") }
        guard let format = formatValue.string?.lowercased() else { return .failure(.invalidRequestFieldType, "imageFormat must be a string") }
        guard formats.contains(format) else { return .failure(.invalidRequestField, "imageFormat \(format) is not supported; GetVersion lists supportedImageFormats") }
        var options = CommandOptions()
        options.format = format
        for (key, label) in [("imageWidth", "width"), ("imageHeight", "height")] {
            guard let value = data?[key], value != .null else { continue }
            guard let n = value.int else { return .failure(.invalidRequestFieldType, "\(key) must be a number") }
            guard (8...4096).contains(n) else { return .failure(.requestFieldOutOfRange, "\(key) must be 8…4096") }
            if label == "width" { options.width = Int(n) } else { options.height = Int(n) }
        }
        if let value = data?["imageCompressionQuality"], value != .null {
            guard let q = value.int else { return .failure(.invalidRequestFieldType, "imageCompressionQuality must be a number") }
            guard (-1...100).contains(q) else { return .failure(.requestFieldOutOfRange, "imageCompressionQuality must be -1…100") }
            options.quality = Int(q)
        }
        if requestType == "SaveSourceScreenshot" {
            guard let pathValue = data?["imageFilePath"] else { return .failure(.missingRequestField, "imageFilePath is required") }
            guard let path = pathValue.string, path.hasPrefix("/") else { return .failure(.invalidRequestField, "imageFilePath must be an absolute path") }
            options.output = path
            options.overwrite = true  // as OBS, which replaces the file
            return screenshot(options).map { _ in .success() }
        }
        // A private temporary file in the service's own process, read back and removed.
        let temporary = NSTemporaryDirectory() + "/recordkit-screenshot-\(UUID().uuidString).\(format)"
        options.output = temporary
        defer { unlink(temporary) }
        return screenshot(options).map { _ in
            guard let bytes = FileManager.default.contents(atPath: temporary) else { return .failure(.requestProcessingFailed, "the screenshot could not be read back") }
            return .success(["imageData": .string("data:image/\(format);base64," + bytes.base64EncodedString())])
        }
    }
}
