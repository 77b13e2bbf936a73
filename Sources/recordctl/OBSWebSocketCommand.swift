import ArgumentParser
import Foundation
import RecordCtlSupport
import RecordKitConfig

/// `recordctl obs-websocket [enable|disable] [--json]`: the obs-websocket server's switch and how
/// to connect (docs/OBS-WEBSOCKET.md). The settings live in the private config file; a running
/// `recordd` notices a change within 2 s.
struct OBSWebSocketCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "obs-websocket",
        abstract: "Switch the obs-websocket 5 server on or off; print how to connect.",
        discussion: "Off by default. `enable` generates a password the first time (kept in $XDG_CONFIG_HOME/recordkit/private.toml, mode 600) "
            + "and serves ws://127.0.0.1:PORT (4455 unless --port). Controllers that speak obs-websocket 5 (Companion, Touch Portal, obsws-python) "
            + "then drive recordings. docs/OBS-WEBSOCKET.md.")

    @Argument(help: ArgumentHelp("enable or disable; nothing: print the settings.", valueName: "ACTION"))
    var action: Action?

    @Option(help: ArgumentHelp("With enable: the port on 127.0.0.1.", valueName: "PORT"))
    var port: Int?

    @Flag(help: "Print url, port, password and enabled as JSON (for scripts).")
    var json = false

    enum Action: String, ExpressibleByArgument, CaseIterable { case enable, disable }

    func validate() throws {
        if let port, !(1...65_535).contains(port) { throw ValidationError("--port must be 1-65535, got \(port)") }
        if port != nil && action != .enable { throw ValidationError("--port goes with enable") }
    }

    func run() throws {
        let path = OBSWebSocketSettings.privatePath()
        var settings: OBSWebSocketSettings
        do throws(ConfigError) { settings = try OBSWebSocketSettings(path: path) } catch {
            Console.error(error.message)
            throw ExitCode(ExitCodes.usage)
        }
        if let action {
            settings.enabled = action == .enable
            if action == .enable {
                if settings.password.isEmpty { settings.password = OBSWebSocketSettings.generatePassword() }
                if let port { settings.port = port }
            }
            do throws(ConfigError) { try settings.save(to: path) } catch {
                Console.error(error.message)
                throw ExitCode(ExitCodes.cannotCreate)
            }
        }
        let url = "ws://127.0.0.1:\(settings.port)"
        if json {
            let object: [String: Any] = ["enabled": settings.enabled, "url": url, "port": settings.port, "password": settings.password]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            Console.out(String(decoding: data, as: UTF8.self))
        } else if settings.enabled {
            Console.out("obs-websocket: on, \(url)")
            Console.out("server: 127.0.0.1, port: \(settings.port), password: \(settings.password)")
            Console.out("(settings in \(path); the service serves it within 2 s)")
        } else {
            Console.out("obs-websocket: off (recordctl obs-websocket enable switches it on)")
        }
    }
}
