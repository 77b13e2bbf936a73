import ArgumentParser
import Foundation
import RecordCtlSupport
import RecordKitConfig
import RecordKitControl

/// What to record and where it goes: every option `record` and `start` share, turned into the
/// one ``StartArguments`` both hand to the same builder (the service's `RecordingSession`).
struct RecordingOptions: ParsableArguments {
    // MARK: The recording's own: its frame rate and the background pause

    @Option(help: "Frames per second (default 30).")
    var fps: Int?

    @Option(help: ArgumentHelp("Pause by itself while the recorded window is hidden (hidden), also while another window is focused (unfocused), or only while the screen is locked (never).",
                               valueName: "POLICY"))
    var pauseOnBackground: BackgroundPolicyOption?

    // MARK: Encoding, hooks, uploads, extensions; the sources' and the outputs' own options are declared by them and forwarded

    @OptionGroup(title: "Encoding") var encoding: EncodingOptions

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

    /// Every option recordctl does not know: the capture sources' and the outputs' options (the
    /// area, the audio tracks, the camera, the file, the streams, …, listed after these by
    /// `--help`), which each source's declaration and each extension's manifest declare and the
    /// service or the engine resolves (an unknown one is exit 64 there).
    @Argument(parsing: .allUnrecognized,
              help: ArgumentHelp("The capture sources' and the outputs' options, declared by the sources and the extensions (listed below).",
                                 valueName: "output-options"))
    var outputOptions: [String] = []

    func validate() throws {
        if let fps, !(1...120).contains(fps) { throw ValidationError("--fps must be between 1 and 120, got \(fps)") }
    }

    /// These options as start arguments, with this process's display and audio server and
    /// paths made absolute (the service runs elsewhere). What needs the engine to check (a
    /// malformed region, an unknown extension, a bad setup value, an encoder that cannot open,
    /// Opus in MP4) is checked where the recording is built, before anything records: by the
    /// service for `start` (its `bad_argument` is exit 64 here), by recordctl-engine for
    /// `record`. Throws the usage exit code after printing why.
    func startArguments() throws -> StartArguments {
        // The config file and the profile first (every key of theirs), then the flags given over them.
        let config = try configFile()
        var a: StartArguments
        do throws(ConfigError) { a = try config.startArguments(profile: encoding.profile) } catch { throw ValidationError(error.message) }
        let env = ProcessInfo.processInfo.environment
        a.display = env["DISPLAY"]
        a.audioServer = env["PULSE_SERVER"]
        if let fps { a.fps = fps }
        if let pauseOnBackground { a.pauseOnBackground = pauseOnBackground.rawValue }
        a.outputOptions = outputOptions
        a.workingDirectory = FileManager.default.currentDirectoryPath
        // The service runs elsewhere: the variables an option may read instead of its value (a
        // stream key) travel with the request, never on a command line.
        a.environment = env.filter { $0.key.hasPrefix("RECORDKIT_") }
        if !extensionsDirs.isEmpty { a.extensionsDirs = extensionsDirs.map(absolutePath) }
        a.encoding = try encoding.effective().setupValues
        hooks.apply(to: &a)
        try uploads.apply(to: &a, config: config.uploads(profile: encoding.profile))
        do throws(ControlError) {
            a.extensions = try StartArguments.extensionRequests(names: extensions, setup: setup)
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

/// Policies for `--pause-on-background`.
enum BackgroundPolicyOption: String, ExpressibleByArgument, CaseIterable {
    case hidden, unfocused, never
}
