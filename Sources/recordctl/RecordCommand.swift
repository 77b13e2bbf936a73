import ArgumentParser
import RecordCtlSupport
import RecordKitControl

/// `recordctl record`: one recording in the foreground, no service needed.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record in the foreground until Ctrl-C, SIGTERM or --duration; print the file written.",
        discussion: "Defaults: the whole screen with the cursor, app audio and microphone, 30 fps, MP4 in $XDG_VIDEOS_DIR (else ~/Videos). "
            + "With a stream output (RTMP, SRT: their options are listed below) the recording is also broadcast, live, to each endpoint (docs/RTMP.md); "
            + "the file then records the stream's video encode. "
            + "Examples and exit codes: docs/recordctl.md.")

    @OptionGroup var recording: RecordingOptions

    @Option(help: ArgumentHelp("Stop after this many seconds of recorded time.", valueName: "SECONDS"))
    var duration: Double?

    func validate() throws {
        if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds") }
    }

    /// Records in recordctl-engine (this process becomes it): capture and encoding need FFmpeg,
    /// X11 and PulseAudio, which recordctl itself does not load.
    func run() throws {
        let arguments = try recording.startArguments()
        if let upload = arguments.upload {
            // The service owns uploads: start it if needed and let it check the target (form,
            // credentials, bucket) before anything records.
            var options = CommandOptions()
            options.upload = upload
            for warning in try uploadRequest(.upload, options).warnings ?? [] { Console.error(warning) }
        }
        try EngineHandoff.exec(.record(arguments, duration: duration))
    }
}
