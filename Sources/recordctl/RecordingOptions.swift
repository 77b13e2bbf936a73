import ArgumentParser
import Foundation
import RecordCtlSupport
import RecordKitConfig
import RecordKitControl

/// What to record and where it goes: every option `record` and `start` share, turned into the
/// one ``StartArguments`` both hand to the same builder (the service's `RecordingSession`).
struct RecordingOptions: ParsableArguments {
    // MARK: What to capture

    @Option(help: "Frames per second.")
    var fps: Int = 30

    @Option(help: ArgumentHelp("Record a region of the screen.", valueName: "WxH+X+Y"))
    var region: String?

    @Option(help: ArgumentHelp("Record one window, by id (0x…) or by exact name.", valueName: "ID|NAME"))
    var window: String?

    @Flag(help: "Do not draw the mouse cursor.")
    var noCursor = false

    @Flag(help: "Do not record the microphone (the default PulseAudio source).")
    var noMic = false

    @Flag(help: "Start with the microphone switched off: its track records silence until `recordctl mic on`.")
    var micOff = false

    @Flag(help: "Do not record application audio (the monitor of the default PulseAudio sink).")
    var noAppAudio = false

    @Option(help: ArgumentHelp("PulseAudio sink whose monitor is the app audio.", valueName: "SINK"))
    var appSink: String?

    @Option(help: ArgumentHelp("PulseAudio source used as the microphone.", valueName: "SOURCE"))
    var micSource: String?

    @Flag(help: "Fail when no PulseAudio server or source is available instead of recording video only.")
    var requireAudio = false

    @Option(help: ArgumentHelp("Pause by itself while the recorded window is hidden (hidden), also while another window is focused (unfocused), or only while the screen is locked (never).",
                               valueName: "POLICY"))
    var pauseOnBackground: BackgroundPolicyOption = .hidden

    @OptionGroup var sources: CaptureSourceOptions

    // MARK: Where it goes

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write (default: a timestamped name in the videos directory).", valueName: "FILE"))
    var output: String?

    @Option(help: "Container: mp4 or mkv (default: from the --output extension, else mp4).")
    var format: ContainerFormat?

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    @Flag(help: ArgumentHelp("Write an MP4's index first, for files published on the web that should play while they download. "
                             + "Costs a rewrite of the whole file at stop (time in proportion to its length, free space for a second copy); "
                             + "without it the index is appended at the end and stop takes the same short time for any length."))
    var faststart = false

    @Flag(help: "Write no file: only broadcast (--rtmp), keep a replay buffer (--replay-buffer) or feed extensions.")
    var noFile = false

    @Option(name: .customLong("rtmp"), help: ArgumentHelp("Also broadcast to this RTMP endpoint, rtmp://host[:port]/app/KEY or rtmps://… (repeatable).", valueName: "URL"))
    var rtmp: [String] = []

    @OptionGroup var rtmpKey: RTMPKeyOptions

    @Option(name: .customLong("rtmp-ca-file"),
            help: ArgumentHelp("For rtmps:// endpoints: trust the certificate authorities in this PEM file instead of the system's store "
                               + "(for a server with a private CA or a self-signed certificate). The server's certificate is always verified.",
                               valueName: "PATH"))
    var rtmpCAFile: String?

    @Option(name: .customLong("srt"),
            help: ArgumentHelp("Also stream MPEG-TS to this SRT listener, srt://HOST:PORT[?streamid=…&passphrase=…&latency=MICROSECONDS] (repeatable; the stream id and passphrase are never shown).",
                               valueName: "URL"))
    var srt: [String] = []

    @OptionGroup(title: "Encoding") var encoding: EncodingOptions

    @OptionGroup var replay: ReplayOptions

    @OptionGroup var preview: PreviewFlagOptions
    @OptionGroup var split: SplitOptions
    @OptionGroup var hooks: HookOptions
    @OptionGroup var uploads: RecordingUploadOptions

    @Option(name: .customLong("extension"),
            help: ArgumentHelp("Also feed the recording to this extension (repeatable; `recordctl extensions` lists them).", valueName: "NAME"))
    var extensions: [String] = []

    @Option(name: .customLong("setup"),
            help: ArgumentHelp("A setup value for the extension, checked against its manifest before recording starts; with several --extension, NAME:key=value (repeatable).",
                               valueName: "KEY=VALUE"))
    var setup: [String] = []

    @Option(name: .customLong("extensions-dir"),
            help: ArgumentHelp("Also look for extensions here: a directory of extension directories, or one extension's directory (repeatable).",
                               valueName: "DIR"))
    var extensionsDirs: [String] = []

    func validate() throws {
        guard (1...120).contains(fps) else { throw ValidationError("--fps must be between 1 and 120, got \(fps)") }
        if region != nil && window != nil { throw ValidationError("--region and --window cannot be used together") }
        if noMic && micOff { throw ValidationError("--mic-off needs a microphone track: drop --no-mic") }
        if noMic && noAppAudio && requireAudio { throw ValidationError("--require-audio contradicts --no-mic --no-app-audio") }
        if noFile && (output != nil || format != nil || overwrite || faststart) {
            throw ValidationError("--no-file contradicts --output, --format, --overwrite and --faststart")
        }
        if noFile && (split.seconds != nil || split.megabytes != nil) { throw ValidationError("--no-file contradicts --split-every and --split-size") }
        try sources.check(region: region, window: window, noAppAudio: noAppAudio, appSink: appSink)
    }

    /// These options as start arguments, with this process's display and audio server and
    /// paths made absolute (the service runs elsewhere). What needs the engine to check (a
    /// malformed region, an unknown extension, a bad setup value, an encoder that cannot open,
    /// Opus in MP4) is checked where the recording is built, before anything records: by the
    /// service for `start` (its `bad_argument` is exit 64 here), by recordctl-engine for
    /// `record`. Throws the usage exit code after printing why.
    func startArguments() throws -> StartArguments {
        var a = StartArguments()
        let env = ProcessInfo.processInfo.environment
        a.display = env["DISPLAY"]
        a.audioServer = env["PULSE_SERVER"]
        a.fps = fps
        a.region = region
        a.window = window
        a.noCursor = noCursor
        a.noMic = noMic
        a.micOff = micOff
        a.noAppAudio = noAppAudio
        a.appSink = appSink
        a.micSource = micSource
        a.requireAudio = requireAudio
        a.pauseOnBackground = pauseOnBackground.rawValue
        a.output = output.map(absolutePath)
        a.format = format?.rawValue
        a.overwrite = overwrite
        a.noFile = noFile
        a.faststart = faststart
        replay.apply(to: &a)
        split.apply(to: &a)
        a.rtmp = try rtmpKey.resolve(rtmp)
        a.rtmpCAFile = try (rtmpCAFile ?? configFile().rtmp.caFile).map(absolutePath)
        a.srt = srt
        a.extensionsDirs = extensionsDirs.map(absolutePath)
        a.encoding = try encoding.effective().setupValues
        let config = try configFile()
        hooks.apply(to: &a, config: config.hooks)
        try uploads.apply(to: &a, config: config.uploads)
        sources.apply(to: &a)
        do throws(ControlError) {
            a.extensions = try StartArguments.extensionRequests(names: extensions, setup: setup)
            try preview.apply(to: &a)
        } catch {
            Console.error(error.message)
            throw ExitCode(ExitCodes.usage)
        }
        return a
    }
}

/// The user's config file, or exit 64 with the file's own message.
func configFile() throws -> ConfigFile {
    do throws(ConfigError) { return try ConfigFile() } catch { throw ValidationError(error.message) }
}

/// Container formats for `--format`.
enum ContainerFormat: String, ExpressibleByArgument, CaseIterable {
    case mp4, mkv
}

/// Policies for `--pause-on-background`.
enum BackgroundPolicyOption: String, ExpressibleByArgument, CaseIterable {
    case hidden, unfocused, never
}
