import ArgumentParser
import Foundation
import RecordCtlSupport
import RecordKitControl

/// `recordctl save-replay`.
struct SaveReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save-replay",
        abstract: "Write the replay buffer's last seconds to an MP4 and print its path.",
        discussion: "Needs a recording started with --replay-buffer SECONDS. The clip starts on a key frame at most one group of pictures "
            + "before the requested start; the recording goes on undisturbed. docs/recordctl/save-replay.md.")

    @Option(help: ArgumentHelp("Save only the last N seconds (default: the whole buffer).", valueName: "N"))
    var seconds: Double?

    @Option(help: ArgumentHelp("The file to write (default: \"Replay <date> at <time>.mp4\" in the videos directory).", valueName: "FILE"))
    var output: String?

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    @Option(name: .customLong("upload"), help: ArgumentHelp("Also upload the clip (s3://BUCKET/PREFIX, https://…, tus+https://…); the service owns the transfer.", valueName: "TARGET"))
    var upload: String?

    @OptionGroup(title: "Upload") var uploadFlags: UploadFlags

    func validate() throws {
        if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be positive, got \(seconds)") }
    }

    func run() throws {
        var options = CommandOptions(seconds: seconds, output: output.map(absolutePath), overwrite: overwrite ? true : nil)
        let config = try configFile().uploads
        options.upload = try upload.map { uploadFlags.options(target: try UploadFlags.target($0), config: config) }
        let result: ControlResult
        do throws(ControlError) {
            let client = try ServiceConnection.connect(startIfNeeded: false)
            result = try client.request(.saveReplay, options: options)
        } catch {
            Console.error(error.message)
            throw ExitCode(ExitCodes.code(for: error))
        }
        Console.out(result.path ?? "")
        for warning in result.warnings ?? [] { Console.error(warning) }
        for u in result.uploads ?? [] { Console.error("upload \(u.id) queued: \(u.target)") }
    }
}
