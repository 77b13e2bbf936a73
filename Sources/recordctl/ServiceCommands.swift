import ArgumentParser
import Foundation
import RecordCtlSupport
import RecordKitControl

/// Runs one request against the service and maps a protocol error to its exit code.
func serviceRequest(_ cmd: ControlCommand, args: StartArguments? = nil, startIfNeeded: Bool = true) throws -> ControlResult {
    do throws(ControlError) {
        let client = try ServiceConnection.connect(startIfNeeded: startIfNeeded)
        return try client.request(cmd, args: args)
    } catch {
        Console.error(error.message)
        throw ExitCode(ExitCodes.code(for: error))
    }
}

/// Runs `cmd` on the whole recording, or with `id` on that output alone.
func outputRequest(_ cmd: ControlCommand, id: String?) throws -> ControlResult {
    guard let id else { return try serviceRequest(cmd) }
    do throws(ControlError) {
        var options = CommandOptions()
        options.outputId = id
        return try ServiceConnection.connect(startIfNeeded: false).request(cmd, options: options)
    } catch {
        Console.error(error.message)
        throw ExitCode(ExitCodes.code(for: error))
    }
}

/// `recordctl start`.
struct StartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start", abstract: "Start a recording in the service; return once the first frame is captured and print its id.",
        discussion: "Takes the same options as `record`. Examples and exit codes: docs/recordctl.md.")

    @OptionGroup var recording: RecordingOptions

    func run() throws {
        let arguments = try recording.startArguments()
        let result = try serviceRequest(.start, args: arguments)
        for warning in result.warnings ?? [] { Console.error(warning) }
        if let attached = result.attached {
            // Joined the running capture: the new outputs' ids, for `recordctl stop ID`.
            Console.error("added to the running recording \(result.recordingId ?? "")")
            for id in attached { Console.out(id) }
        } else {
            Console.out(result.recordingId ?? "")
        }
        // A page an output published (the preview's), whichever option asked for it; after a
        // join, only one of the outputs this start added.
        if let status = try? serviceRequest(.status, startIfNeeded: false).status,
           let url = previewURL(in: status, among: result.attached) {
            Console.out("preview: \(url)")
        }
    }
}

/// `recordctl stop`.
struct StopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop", abstract: "Stop the recording, finalize every output, print where each result is.",
        discussion: "--output moves the recording's file to FILE once it is final, atomically, also to another file system; "
            + "an existing FILE is refused (before the recording stops) unless --overwrite. With ID (an output's id, as `start` "
            + "printed it and `status` lists it) only that output stops; the capture and its other outputs go on, and the last "
            + "output stops the recording. docs/recordctl/stop.md.")

    @Argument(help: ArgumentHelp("Stop only this output (e.g. file-2, rtmp); without it, the whole recording.", valueName: "ID"))
    var id: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Deliver the recording's file here (the recording's last part, for split recordings).", valueName: "FILE"))
    var output: String?

    @Flag(help: "Replace --output if it exists.")
    var overwrite = false

    func validate() throws {
        if overwrite && output == nil { throw ValidationError("--overwrite needs --output FILE") }
    }

    func run() throws {
        let result: ControlResult
        if output != nil || id != nil {
            do throws(ControlError) {
                let client = try ServiceConnection.connect(startIfNeeded: false)
                var options = CommandOptions(output: output.map(absolutePath), overwrite: overwrite ? true : nil)
                options.outputId = id
                result = try client.request(.stop, options: options)
            } catch {
                Console.error(error.message)
                throw ExitCode(ExitCodes.code(for: error))
            }
        } else {
            result = try serviceRequest(.stop, startIfNeeded: true)
        }
        for output in result.outputs ?? [] { Console.out(output) }
        // A handler that failed (an endpoint that gave up, files kept in the session directory):
        // said on stderr, and stop is not a plain success (exit 70), so a script notices.
        for warning in result.warnings ?? [] { Console.error(warning) }
        if result.state == "failed" || result.warnings != nil { throw ExitCode(ExitCodes.failed) }
    }
}

/// `recordctl discard`.
struct DiscardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discard", abstract: "Stop the recording and delete everything it wrote; print what was removed.",
        discussion: "With ID (an output's id, as `start` printed it and `status` lists it) only that output is discarded: its file "
            + "and working files are deleted, the capture and its other outputs go on; the last output discards the recording. "
            + "docs/recordctl/discard.md.")
    @Argument(help: ArgumentHelp("Discard only this output (e.g. file-2, rtmp); without it, the whole recording.", valueName: "ID"))
    var id: String?
    func run() throws {
        let result = id == nil ? try serviceRequest(.discard, startIfNeeded: true) : try outputRequest(.discard, id: id)
        for path in result.removed ?? [] { Console.out("removed \(path)") }
    }
}

/// `recordctl pause`.
struct PauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause the recording (paused time is cut from the output).",
                                                    discussion: "With ID only that output pauses; the capture and the other outputs (a replay buffer) go on.")
    @Argument(help: ArgumentHelp("Pause only this output (its id in `recordctl status`).", valueName: "ID"))
    var id: String?
    func run() throws { _ = try outputRequest(.pause, id: id) }
}

/// `recordctl resume`.
struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume a paused recording.",
                                                    discussion: "With ID only that output resumes, at a fresh key frame.")
    @Argument(help: ArgumentHelp("Resume only this output.", valueName: "ID"))
    var id: String?
    func run() throws { _ = try outputRequest(.resume, id: id) }
}
