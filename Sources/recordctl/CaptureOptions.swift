import ArgumentParser
import RecordKitCapture
import Foundation
import RecordKitPipeline
import RecordKitService

/// What to capture: shared by `record` and `start`.
struct CaptureOptions: ParsableArguments {
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

    @Flag(help: "Do not record application audio (the monitor of the default PulseAudio sink).")
    var noAppAudio = false

    @Option(help: ArgumentHelp("PulseAudio sink whose monitor is the app audio.", valueName: "SINK"))
    var appSink: String?

    @Option(help: ArgumentHelp("PulseAudio source used as the microphone.", valueName: "SOURCE"))
    var micSource: String?

    @Flag(help: "Fail when no PulseAudio server or source is available instead of recording video only.")
    var requireAudio = false

    @OptionGroup var sources: CaptureSourceOptions

    func validate() throws {
        guard (1...120).contains(fps) else { throw ValidationError("--fps must be between 1 and 120, got \(fps)") }
        if region != nil && window != nil { throw ValidationError("--region and --window cannot be used together") }
        if sources.monitor != nil && (region != nil || window != nil) { throw ValidationError("--monitor cannot be combined with --region or --window") }
        if sources.appAudioFrom != nil && (noAppAudio || appSink != nil) { throw ValidationError("--app-audio-from cannot be combined with --no-app-audio or --app-sink") }
        if let region {
            do { _ = try CaptureRect.parse(region) } catch { throw ValidationError(error.message) }
        }
        if noMic && noAppAudio && requireAudio { throw ValidationError("--require-audio contradicts --no-mic --no-app-audio") }
    }

    /// These options as service start arguments (with this process's display and audio server).
    func startArguments() -> StartArguments {
        var a = StartArguments()
        let env = ProcessInfo.processInfo.environment
        a.display = env["DISPLAY"]
        a.audioServer = env["PULSE_SERVER"]
        a.fps = fps
        a.region = region
        a.window = window
        a.noCursor = noCursor
        a.noMic = noMic
        a.noAppAudio = noAppAudio
        a.appSink = appSink
        a.micSource = micSource
        a.requireAudio = requireAudio
        sources.apply(to: &a)
        return a
    }
}
