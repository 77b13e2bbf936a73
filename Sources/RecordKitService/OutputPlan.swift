import FileUploadExtension
import Foundation

/// Where a service recording writes: a working file inside its session directory while it runs,
/// moved to its destination at stop.
struct OutputPlan {
    let container: FileOutputOptions.Container
    let destination: String
    let workingFile: String
    let fileOptions: FileOutputOptions

    init(args: StartArguments, sessionDirectory: String) throws(ControlError) {
        let container: FileOutputOptions.Container
        switch args.format?.lowercased() {
        case nil: container = args.output?.lowercased().hasSuffix(".mkv") == true ? .mkv : .mp4
        case "mp4": container = .mp4
        case "mkv": container = .mkv
        case let other?: throw ControlError("bad_argument", "format must be mp4 or mkv, got '\(other)'")
        }
        var options = FileOutputOptions(path: args.output.map(Self.absolute), container: container, overwrite: args.overwrite)
        self.destination = options.resolvedPath()
        options.path = destination
        self.workingFile = sessionDirectory + "/recording." + container.fileExtension
        options.workingPath = workingFile
        self.container = container
        self.fileOptions = options
    }

    /// Relative paths are relative to the client; the service runs elsewhere, so they must be
    /// absolute by the time they get here (recordctl resolves them).
    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
