import Foundation
import XCTest

/// A private PipeWire + WirePlumber + pipewire-pulse started by `scripts/pipewire-server.sh` in a
/// directory of its own (never the rig's PulseAudio), with null sinks app_sink (default) and
/// mic_sink like the rig's.
struct PipeWireServer: Sendable {
    /// The server's directory (config, runtime dir, logs, socket).
    let directory: String
    /// `unix:<directory>/pulse.sock`, the value for PULSE_SERVER.
    let pulseServer: String

    static let binaries = ["pipewire", "pipewire-pulse", "wireplumber"]

    /// The PipeWire programs that are not installed (empty when all are).
    static func missingBinaries(environment: [String: String]) -> [String] {
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return binaries.filter { name in
            !path.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
        }
    }

    /// Starts the server in `directory` (bounded: the script gives up after ~40 s) and waits
    /// until it answers as "PulseAudio (on PipeWire …)".
    static func start(in directory: String, environment: [String: String]) throws -> PipeWireServer {
        let script = packageRoot.appendingPathComponent("scripts/pipewire-server.sh").path
        let r = try ProcessRunner.run("bash", [script, "start", directory], environment: environment, timeout: 60)
        guard r.exitCode == 0, let server = r.lastStdoutLine, server.hasPrefix("unix:") else {
            throw RigError(description: "PipeWire did not start in \(directory): \(r)")
        }
        return PipeWireServer(directory: directory, pulseServer: server)
    }

    /// Stops what ``start(in:environment:)`` started (bounded: TERM, KILL after 5 s).
    func stop(environment: [String: String]) {
        let script = packageRoot.appendingPathComponent("scripts/pipewire-server.sh").path
        _ = try? ProcessRunner.run("bash", [script, "stop", directory], environment: environment, timeout: 30)
    }

    /// `base` with the PulseAudio clients (pactl, ffmpeg, recordctl) pointed at this server.
    func clientEnvironment(_ base: [String: String]) -> [String: String] {
        var e = base
        e["PULSE_SERVER"] = pulseServer
        e["PULSE_CLIENTCONFIG"] = "/dev/null"
        e["PULSE_COOKIE"] = (directory as NSString).appendingPathComponent("cookie")
        return e
    }
}
