import ArgumentParser
import Glibc
import RecordCtlSupport
import RecordKitControl

extension RecordCtl {
    /// Parses and runs the command like ArgumentParser's own `main()`, but every message it
    /// prints (a usage error quotes the offending argument, which may be a URL with its stream
    /// key) goes through ``SecretRedactor`` first.
    static func main() {
        showOutputOptionsHelpIfAsked()
        do {
            var command = try parseAsRoot(Array(CommandLine.arguments.dropFirst()))
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = SecretRedactor.redact(fullMessage(for: error))
            if !message.isEmpty {
                let text = message + "\n"
                // Help and version (a success) go to standard output, errors to standard error.
                _ = text.withCString { Glibc.write(code == .success ? 1 : 2, $0, strlen($0)) }
            }
            Glibc.exit(code.rawValue)
        }
    }

    /// `record --help` and `start --help`: recordctl's own options, then the capture sources' and
    /// the outputs' options, which the sources' declarations and the extensions' manifests declare:
    /// recordctl links neither, so the engine (which links the built-ins and the sources, and reads
    /// the extension directories) prints them. Returns when not asked.
    private static func showOutputOptionsHelpIfAsked() {
        let args = Array(CommandLine.arguments.dropFirst())
        guard let verb = args.first, ["record", "start"].contains(verb), args.contains("--help") || args.contains("-h") else { return }
        let command: any ParsableCommand.Type = verb == "record" ? RecordCommand.self : StartCommand.self
        Console.help(helpMessage(for: command))
        var directories: [String] = []
        for (i, arg) in args.enumerated() where arg == "--extensions-dir" && i + 1 < args.count { directories.append(absolutePath(args[i + 1])) }
        do { try EngineHandoff.exec(.outputOptionsHelp(directories: directories)) } catch {
            Glibc.exit(exitCode(for: error).rawValue)
        }
    }
}
