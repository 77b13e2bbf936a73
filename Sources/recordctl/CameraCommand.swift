import ArgumentParser
import RecordCtlSupport
import RecordKitControl

/// `recordctl camera off|on`: the live camera switch of a running recording (ReplayKit's
/// `isCameraEnabled`).
struct CameraCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camera",
        abstract: "Hide (off) or show (on) the camera's corner in the running recording; print the switch's time in seconds.",
        discussion: "Needs a recording started with --camera. The corner disappears from the switch's instant on in every output "
            + "and comes back with `on`. Each switch is a camera-off/camera-on event with its time (recordctl events); status shows "
            + "the state. `--camera-off` starts with it hidden. A foreground `recordctl record` is switched when the service "
            + "records nothing. docs/recordctl/camera.md.")

    @Argument(help: ArgumentHelp("off or on.", valueName: "off|on"))
    var state: AudioSwitchState

    func run() throws {
        let result: ControlResult
        do throws(ControlError) {
            var options = CommandOptions()
            options.enabled = state == .on
            result = try LiveSwitch.send(.cameraSwitch, options: options)
        } catch {
            Console.error(error.message)
            throw ExitCode(ExitCodes.code(for: error))
        }
        Console.out(String(format: "%.3f", result.time ?? 0))
    }
}

/// `recordctl cameras`: the cameras `--camera` can record.
struct CamerasCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cameras",
        abstract: "List the cameras for --camera: PipeWire's Video/Source nodes (name, node id, description, role) and V4L2 devices.",
        discussion: "One line per camera: api, name (what --camera takes), node id, description, role. V4L2 devices are listed "
            + "only: record them through PipeWire, which exposes them as nodes when WirePlumber runs. docs/recordctl/camera.md.")

    @Flag(help: "Print the list as JSON.")
    var json = false

    /// Asks PipeWire from recordctl-engine (this process becomes it).
    func run() throws {
        try EngineHandoff.exec(.cameras(json: json))
    }
}
