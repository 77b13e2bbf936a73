import ArgumentParser
import Dispatch
import FileUploadExtension
import Foundation
import RecordKit
import RecordKitPipeline
import RecordKitService

/// `recordctl record`: one recording in the foreground, no service needed.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record in the foreground until Ctrl-C, SIGTERM or --duration; print the file written.",
        discussion: "Defaults: the whole screen with the cursor, app audio and microphone, 30 fps, MP4 in $XDG_VIDEOS_DIR (else ~/Videos). "
            + "With --rtmp the recording is also broadcast, live, to each endpoint (docs/RTMP.md); the file then records the stream's video encode.")

    @OptionGroup var capture: CaptureOptions

    @OptionGroup var extensionOptions: ExtensionOptions

    @OptionGroup(title: "Encoding") var encoding: EncodingOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write (default: a timestamped name in the videos directory).", valueName: "FILE"))
    var output: String?

    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "SECONDS"))
    var duration: Double?

    @Option(help: "Container: mp4 or mkv (default: from the --output extension, else mp4).")
    var format: ContainerFormat?

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    @Option(name: .customLong("rtmp"), help: ArgumentHelp("Also broadcast to this RTMP endpoint, rtmp://host[:port]/app/KEY or rtmps://… (repeatable).", valueName: "URL"))
    var rtmp: [String] = []

    func validate() throws {
        if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds") }
        for url in rtmp {
            do throws(BroadcastError) { try HandlerFactory.validateRTMP(url) } catch { throw ValidationError("--rtmp: \(error.message)") }
        }
    }

    func run() throws {
        let configuration: RecordingConfiguration
        do throws(ControlError) { configuration = try capture.startArguments().recordingConfiguration() } catch {
            throw ValidationError(error.message)
        }
        let container = format?.container ?? (output?.lowercased().hasSuffix(".mkv") == true ? .mkv : .mp4)
        let file = FileOutputOptions(path: output, container: container, overwrite: overwrite)
        let resolved = try encoding.resolved(container: container.rawValue, streaming: !rtmp.isEmpty)
        for note in resolved.notes { Console.error(note) }
        let session = ForegroundSession(configuration: configuration,
                                        handlers: HandlerFactory.registrations(file: file, rtmp: rtmp, encoding: resolved) + (try extensionOptions.registrations()))
        let code = session.run(duration: duration)
        if code != 0 { throw ExitCode(code) }
    }
}

/// Container formats for `--format`.
enum ContainerFormat: String, ExpressibleByArgument, CaseIterable {
    case mp4, mkv
    var container: FileOutputOptions.Container { self == .mkv ? .mkv : .mp4 }
}
