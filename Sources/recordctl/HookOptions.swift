import ArgumentParser
import RecordKitConfig
import RecordKitControl

/// `--on-saved CMD` and `--hook-timeout SECONDS`, shared by `record` and `start`: commands run
/// after each file of the recording is final (docs/recordctl/hooks.md). Given on the command
/// line they replace the config file's `[hooks] on-saved`.
struct HookOptions: ParsableArguments {
    @Option(name: .customLong("on-saved"),
            help: ArgumentHelp("Run this shell command after the recording, each split part and each replay clip is final, "
                               + "with the path as $1 and the kind (recording, part, replay) as $2 (repeatable).", valueName: "CMD"))
    var commands: [String] = []

    @Option(name: .customLong("hook-timeout"),
            help: ArgumentHelp("Seconds each --on-saved command may run before it is ended (default 60).", valueName: "SECONDS"))
    var timeout: Double?

    func validate() throws {
        if let timeout, !(timeout > 0 && timeout <= 86_400) { throw ValidationError("--hook-timeout must be seconds, more than 0 and at most 86400, got \(timeout)") }
    }

    /// Sets the hooks on `arguments` (which hold the config file's): these flags replace them.
    func apply(to arguments: inout StartArguments) {
        if !commands.isEmpty { arguments.onSaved = commands }
        if let timeout { arguments.hookTimeout = timeout }
    }
}
