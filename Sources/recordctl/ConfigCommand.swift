import ArgumentParser
import RecordCtlSupport
import RecordKitConfig

/// `recordctl config`: the config file and profiles.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show the encoding settings in force and where each comes from.",
        subcommands: [ConfigShowCommand.self], defaultSubcommand: ConfigShowCommand.self)
}

/// `recordctl config show [--profile NAME] [encoding flags]`.
struct ConfigShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print each encoding setting, its value and its source: flag, profile, config file or default.",
        discussion: "The config file is $XDG_CONFIG_HOME/recordkit/config.toml (else ~/.config/recordkit/config.toml). "
            + "Precedence: flag, then --profile, then the file's top level, then the built-in default.")

    @OptionGroup var encoding: EncodingOptions

    func run() throws {
        let settings = try encoding.effective()
        Console.out("# config file: \(ConfigFile.defaultPath())" + (encoding.profile.map { ", profile \($0)" } ?? ""))
        for line in settings.lines { Console.out(line) }
    }
}
