import Foundation
import RecordKitSupport

extension RecordingService {
    /// `screenshot`: the recording's newest picture (the one its video encoder was last given)
    /// as a PNG or JPEG at `output` (absolute; an existing file only with `overwrite`), written
    /// whole or not at all (``AtomicFile``), mode 0600. Answers with `path`.
    func screenshot(_ options: CommandOptions) throws(ControlError) -> ControlResult {
        let format = (options.format ?? "png").lowercased()
        guard ["png", "jpg", "jpeg"].contains(format) else {
            throw ControlError(.badArgument, "unknown image format '\(format)': use png, jpg or jpeg")
        }
        guard let output = options.output, output.hasPrefix("/") else {
            throw ControlError(.badArgument, "screenshot needs \"output\", an absolute path of the image to write")
        }
        for (name, value) in [("width", options.width), ("height", options.height)] {
            if let value, !(8...4096).contains(value) { throw ControlError(.badArgument, "\(name) must be 8…4096 pixels, not \(value)") }
        }
        if let q = options.quality, !(-1...100).contains(q) { throw ControlError(.badArgument, "quality must be 0…100 (or -1 for the default), not \(q)") }
        if options.overwrite != true, FileManager.default.fileExists(atPath: output) {
            throw ControlError(.cannotCreateOutput, "\(output) exists; pass overwrite to replace it")
        }
        let active = try current()
        let quality = options.quality.flatMap { $0 < 0 ? nil : $0 }
        let image = try active.session.screenshot(format: format, width: options.width, height: options.height, quality: quality)
        do throws(FileSystemError) {
            try AtomicFile.write(image.bytes, to: output)
        } catch {
            throw ControlError(.cannotCreateOutput, "screenshot: \(error.description)")
        }
        var r = ControlResult()
        r.path = output
        return r
    }
}
