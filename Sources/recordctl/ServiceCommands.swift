import ArgumentParser
import Foundation
import RecordKitService

/// Runs one request against the service and maps a protocol error to its exit code.
func serviceRequest(_ cmd: String, args: StartArguments? = nil, startIfNeeded: Bool = true) throws -> ControlResult {
    do throws(ControlError) {
        let client = try ServiceConnection.connect(startIfNeeded: startIfNeeded)
        return try client.request(cmd, args: args)
    } catch {
        Console.error(error.message)
        throw ExitCode(ExitCodes.code(for: error))
    }
}

/// `recordctl start`.
struct StartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start", abstract: "Start a recording in the service; return once the first frame is captured and print its id.")

    @OptionGroup var capture: CaptureOptions

    @OptionGroup var extensionOptions: ExtensionOptions

    @OptionGroup(title: "Encoding") var encoding: EncodingOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Where the file goes at stop (default: a timestamped name in the videos directory).", valueName: "FILE"))
    var output: String?

    @Option(help: "Container: mp4 or mkv (default: from the --output extension, else mp4).")
    var format: ContainerFormat?

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    @Option(help: ArgumentHelp("Pause while the recorded window is hidden (hidden), also while another window is focused (unfocused), or never.", valueName: "POLICY"))
    var pauseOnBackground: String = "hidden"

    @Option(name: .customLong("rtmp"), help: ArgumentHelp("Also broadcast to this RTMP endpoint (repeatable).", valueName: "URL"))
    var rtmp: [String] = []

    func validate() throws {
        guard ["hidden", "unfocused", "never"].contains(pauseOnBackground) else {
            throw ValidationError("--pause-on-background must be hidden, unfocused or never")
        }
    }

    func run() throws {
        var args = capture.startArguments()
        if let output { args.output = output.hasPrefix("/") ? output : FileManager.default.currentDirectoryPath + "/" + output }
        args.format = format?.rawValue
        args.overwrite = overwrite
        args.pauseOnBackground = pauseOnBackground
        args.rtmp = rtmp
        args.encoding = try encoding.effective().choices  // the service checks them against the container
        // Checked here too, so a mistake is reported before the service is even asked.
        args.extensions = try extensionOptions.checkedRequests()
        args.extensionsDirs = extensionOptions.absoluteExtensionsDirs
        let result = try serviceRequest("start", args: args)
        for warning in result.warnings ?? [] { Console.error(warning) }
        Console.out(result.recordingId ?? "")
    }
}

/// `recordctl stop`.
struct StopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop the recording, finalize every output, print where each result is.")
    func run() throws {
        let result = try serviceRequest("stop", startIfNeeded: true)
        for output in result.outputs ?? [] { Console.out(output) }
        if result.state == "failed" { throw ExitCode(ExitCodes.failed) }
    }
}

/// `recordctl discard`.
struct DiscardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "discard", abstract: "Stop the recording and delete everything it wrote; print what was removed.")
    func run() throws {
        let result = try serviceRequest("discard", startIfNeeded: true)
        for path in result.removed ?? [] { Console.out("removed \(path)") }
    }
}

/// `recordctl pause`.
struct PauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause the recording (paused time is cut from the output).")
    func run() throws { _ = try serviceRequest("pause") }
}

/// `recordctl resume`.
struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume a paused recording.")
    func run() throws { _ = try serviceRequest("resume") }
}
