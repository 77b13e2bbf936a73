import ArgumentParser
import RecordCtlSupport
import RecordKitControl

/// The capture source options (damage-driven capture, one monitor, one application's audio);
/// part of ``RecordingOptions``, so `record` and `start` share them.
struct CaptureSourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("What an unchanged tick records: constant (repeat the picture: every frame slot filled) "
        + "or variable (no frame while nothing changes but one every half second). Default variable.", valueName: "MODE"))
    var frameRateMode: FrameRateModeArgument?

    @Option(help: ArgumentHelp("Where the picture comes from: x11 (the X display) or portal (a Wayland screen through "
        + "the ScreenCast portal and PipeWire). Default: portal in a Wayland session without X (WAYLAND_DISPLAY set, "
        + "DISPLAY unset), x11 otherwise.", valueName: "x11|portal"))
    var source: String?

    @Option(help: ArgumentHelp("Record one RandR monitor, by name or by index (`recordctl monitors` lists them).", valueName: "NAME|INDEX"))
    var monitor: String?

    @Option(help: ArgumentHelp("Record only this application's sound as app audio: its PulseAudio sink inputs, by "
        + "application name or process id (`recordctl audio-sources` lists them).", valueName: "NAME|PID"))
    var appAudioFrom: String?

    @Option(help: ArgumentHelp("Composite a camera picture-in-picture into the recording: a name from `recordctl cameras` "
        + "(node name, description or node id); `--camera` alone (or `*`) takes the first camera.", valueName: "NAME"))
    var camera: String?

    @Option(help: ArgumentHelp("The camera's corner: top-left, top-right, bottom-left or bottom-right. Default bottom-right.", valueName: "CORNER"))
    var cameraPosition: String?

    @Option(help: ArgumentHelp("The camera's width in percent of the picture's width (1% to 100%), aspect kept. Default 25%.", valueName: "PERCENT"))
    var cameraSize: String?

    @Flag(help: "Start with the camera's corner hidden (`recordctl camera on` shows it).")
    var cameraOff = false

    @Flag(help: ArgumentHelp("Record the camera as its own video track (at its own size, black while switched off) instead of "
        + "in a corner; files only: RTMP, SRT and the preview carry the screen."))
    var cameraTrack = false

    /// Rejects combinations that contradict the other capture options.
    func check(region: String?, window: String?, noAppAudio: Bool, appSink: String?) throws {
        if let source, !["x11", "portal"].contains(source) { throw ValidationError("--source must be x11 or portal, got '\(source)'") }
        if monitor != nil && (region != nil || window != nil) { throw ValidationError("--monitor cannot be combined with --region or --window") }
        if appAudioFrom != nil && (noAppAudio || appSink != nil) { throw ValidationError("--app-audio-from cannot be combined with --no-app-audio or --app-sink") }
    }

    /// Lays the options given over `arguments` (the monitor is set with the area, by the caller).
    func apply(to arguments: inout StartArguments) {
        if let frameRateMode { arguments.frameRateMode = frameRateMode.rawValue }
        if let source { arguments.source = source }
        if let appAudioFrom {
            arguments.appAudioFrom = appAudioFrom
            arguments.appSink = nil  // the config's sink gives way to the flag's application
        }
        if let camera { arguments.camera = camera == "*" ? "" : camera }  // `*`: the first camera
        if let cameraPosition { arguments.cameraPosition = cameraPosition }
        if let cameraSize { arguments.cameraSize = cameraSize }
        if cameraOff { arguments.cameraOff = true }
        if cameraTrack { arguments.cameraTrack = true }
    }
}

/// `--frame-rate-mode` values.
enum FrameRateModeArgument: String, ExpressibleByArgument, CaseIterable {
    case constant, variable
}
