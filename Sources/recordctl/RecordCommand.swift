import ArgumentParser
import RecordKitService

/// `recordctl record`: one recording in the foreground, no service needed.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record in the foreground until Ctrl-C, SIGTERM or --duration; print the file written.",
        discussion: "Defaults: the whole screen with the cursor, app audio and microphone, 30 fps, MP4 in $XDG_VIDEOS_DIR (else ~/Videos). "
            + "With --rtmp the recording is also broadcast, live, to each endpoint (docs/RTMP.md); the file then records the stream's video encode. "
            + "Examples and exit codes: docs/recordctl.md.")

    @OptionGroup var recording: RecordingOptions

    @Option(help: ArgumentHelp("Stop after this many seconds of recorded time.", valueName: "SECONDS"))
    var duration: Double?

    func validate() throws {
        if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds") }
    }

    func run() throws {
        let code = ForegroundSession(arguments: try recording.startArguments()).run(duration: duration)
        if code != 0 { throw ExitCode(code) }
    }
}
