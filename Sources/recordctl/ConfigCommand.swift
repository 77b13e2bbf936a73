import ArgumentParser
import Foundation
import RecordCtlSupport
import RecordKitConfig
import RecordKitControl

/// `recordctl config`: the config file and profiles.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show the settings in force for `record`/`start` and where each comes from; check the config file.",
        subcommands: [ConfigShowCommand.self, ConfigCheckCommand.self], defaultSubcommand: ConfigShowCommand.self)
}

/// `recordctl config show [--profile NAME] [encoding flags]`.
struct ConfigShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print each setting, its value and its source: flag, profile, config file (with its line) or default.",
        discussion: "The config file is $XDG_CONFIG_HOME/recordkit/config.toml (else ~/.config/recordkit/config.toml). "
            + "Precedence: flag, then --profile, then the file's top level, then the built-in default.")

    @OptionGroup var encoding: EncodingOptions

    func run() throws {
        let settings = try encoding.effective()
        Console.out("# config file: \(ConfigFile.defaultPath())" + (encoding.profile.map { ", profile \($0)" } ?? ""))
        for line in settings.lines { Console.out(line) }
        let file = try configFile()
        let hooks = file.hooks
        let source = "(config file (\(file.path)))"
        Console.out(hooks.onSaved.isEmpty ? "hooks.on-saved = (none)  (default)" : hooks.onSaved.map { "hooks.on-saved = \($0)  \(source)" }.joined(separator: "\n"))
        Console.out(hooks.timeout.map { "hooks.timeout = \($0)  \(source)" } ?? "hooks.timeout = 60  (default)")
        Console.out(file.rtmp.caFile.map { "rtmp.ca-file = \($0)  \(source)" } ?? "rtmp.ca-file = (the system's trusted certificates)  (default)")
        do throws(ConfigError) {
            // The capture keys, then the outputs' keys the file sets (stream keys masked on output).
            for line in try file.recordingLines(profile: encoding.profile) { Console.out(line) }
        } catch {
            throw ValidationError(error.message)
        }
        for line in file.uploadLines(profile: encoding.profile) { Console.out(line) }
        for action in HotkeySettings.actions {
            Console.out(file.hotkeys.bindings[action].map { "hotkeys.\(action) = \($0)  \(source)" } ?? "hotkeys.\(action) = (none)  (default)")
        }
        let metricsSource = file.metrics == MetricsSettings() ? "(default)" : source
        Console.out("metrics.enabled = \(file.metrics.enabled)  \(metricsSource)")
        Console.out("metrics.port = \(file.metrics.port)  \(metricsSource)")
        let privatePath = OBSWebSocketSettings.privatePath()
        do throws(ConfigError) {
            let obs = try OBSWebSocketSettings(path: privatePath)
            let origin = FileManager.default.fileExists(atPath: privatePath) ? "(private file (\(privatePath)))" : "(default)"
            Console.out("obs-websocket.enabled = \(obs.enabled)  \(origin)")
            Console.out("obs-websocket.port = \(obs.port)  \(origin)")
            Console.out("obs-websocket.password = \(obs.password.isEmpty ? "(none)" : "****")  \(origin)")
        } catch {
            Console.error(error.message)
            throw ExitCode(ExitCodes.usage)
        }
        // Last, the capture sources' keys the file does not set, with their defaults: their
        // declarations are linked by the engine, not by recordctl (this process becomes it).
        var set: [String] = []
        do throws(ConfigError) { set = Array(try file.recordingOptions(profile: encoding.profile).keys) } catch { throw ValidationError(error.message) }
        try EngineHandoff.exec(.sourceKeyDefaults(set: set))
    }
}

/// `recordctl config check`: reads the config file and the private file and says what is wrong,
/// with the line (exit 64), or that both are fine.
struct ConfigCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the config file and the private file: unknown keys, wrong types, secrets readable by others (with line numbers).")

    func run() throws {
        var problems: [String] = []
        var options: [ConfiguredOption] = []
        do throws(ConfigError) {
            let file = try ConfigFile()
            // The outputs' keys of the top level and of every profile: the engine checks them against the catalog.
            options = Array(file.options.values) + file.profileOptions.values.flatMap(\.values)
            options = options.filter { CaptureKey(rawValue: $0.name) == nil }.sorted(by: ConfigFile.fileOrder)
        } catch { problems.append(error.message) }
        do throws(ConfigError) { _ = try OBSWebSocketSettings(path: OBSWebSocketSettings.privatePath()) } catch { problems.append(error.message) }
        for p in problems { Console.error(p) }
        if !problems.isEmpty { throw ExitCode(ExitCodes.usage) }
        try EngineHandoff.exec(.checkConfig(options: options, checked: [ConfigFile.defaultPath(), OBSWebSocketSettings.privatePath()]))
    }
}
