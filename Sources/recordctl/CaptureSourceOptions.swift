import ArgumentParser
import RecordCtlSupport
import RecordKitControl

/// The capture source options (damage-driven capture, one monitor, the video source); part of
/// ``RecordingOptions``, so `record` and `start` share them. The options a source declares in its
/// own folder (the camera's `Sources/RecordKitCapture/Camera/camera-source.json`, the audio
/// source's `Sources/RecordKitCapture/Audio/pulse-source.json`) are not here: recordctl forwards them like the outputs' options, and the engine or the
/// service resolves them against the sources' declarations.
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

    /// Rejects combinations that contradict the other capture options.
    func check(region: String?, window: String?) throws {
        if let source, !["x11", "portal"].contains(source) { throw ValidationError("--source must be x11 or portal, got '\(source)'") }
        if monitor != nil && (region != nil || window != nil) { throw ValidationError("--monitor cannot be combined with --region or --window") }
    }

    /// Lays the options given over `arguments` (the monitor is set with the area, by the caller).
    func apply(to arguments: inout StartArguments) {
        if let frameRateMode { arguments.frameRateMode = frameRateMode.rawValue }
        if let source { arguments.source = source }
    }
}

/// `--frame-rate-mode` values.
enum FrameRateModeArgument: String, ExpressibleByArgument, CaseIterable {
    case constant, variable
}
