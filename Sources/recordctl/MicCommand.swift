import ArgumentParser
import RecordCtlSupport
import RecordKitControl

/// `recordctl mic off|on` and `recordctl app-audio off|on`: the live audio switches of a
/// running recording (ReplayKit's `isMicrophoneEnabled`).
struct MicCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mic",
        abstract: "Switch the microphone of the running recording off (silence) or on; print the switch's time in seconds.",
        discussion: "While off, the microphone track (and its share of a mixed track) records silence: no gap, no timestamp jump. "
            + "Each switch is a mic-off/mic-on event with its time (recordctl events); status shows the state. "
            + "`recordctl start --mic-off` starts with it off. A foreground `recordctl record` is switched when the service "
            + "records nothing. docs/recordctl/mic.md.")

    @Argument(help: ArgumentHelp("off or on.", valueName: "off|on"))
    var state: AudioSwitchState

    func run() throws { try AudioSwitchState.send(state, track: "mic") }
}

/// `recordctl app-audio off|on`.
struct AppAudioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-audio",
        abstract: "Switch the application audio of the running recording off (silence) or on; print the switch's time in seconds.",
        discussion: "The same switch as `recordctl mic`, for the app-audio track (events app-audio-off/app-audio-on). docs/recordctl/mic.md.")

    @Argument(help: ArgumentHelp("off or on.", valueName: "off|on"))
    var state: AudioSwitchState

    func run() throws { try AudioSwitchState.send(state, track: "app") }
}

/// The argument of the audio switches.
enum AudioSwitchState: String, ExpressibleByArgument, CaseIterable {
    case off, on

    /// Sends `audio-switch` for `track` to the running recording (the service's, else a
    /// foreground `recordctl record`'s: ``LiveSwitch``) and prints the switch's time.
    static func send(_ state: AudioSwitchState, track: String) throws {
        let result: ControlResult
        do throws(ControlError) {
            var options = CommandOptions()
            options.track = track
            options.enabled = state == .on
            result = try LiveSwitch.send(.audioSwitch, options: options)
        } catch {
            Console.error(error.message)
            throw ExitCode(ExitCodes.code(for: error))
        }
        Console.out(String(format: "%.3f", result.time ?? 0))
    }
}
