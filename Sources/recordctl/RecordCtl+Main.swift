import ArgumentParser
import Glibc
import RecordCtlSupport
import RecordKitControl

extension RecordCtl {
    /// Parses and runs the command like ArgumentParser's own `main()`, but every message it
    /// prints (a usage error quotes the offending argument, which may be a URL with its stream
    /// key) goes through ``SecretRedactor`` first.
    static func main() {
        do {
            var command = try parseAsRoot(optionalValueArguments(Array(CommandLine.arguments.dropFirst())))
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

    /// `--camera` takes an optional name: alone (last, or before another option) it becomes
    /// `--camera=` (the first camera), which ArgumentParser's options cannot express.
    static func optionalValueArguments(_ arguments: [String]) -> [String] {
        var result: [String] = []
        for (i, a) in arguments.enumerated() {
            if result.contains("--") { result.append(a); continue }
            if a == "--camera", i + 1 == arguments.count || arguments[i + 1].hasPrefix("-") { result.append("--camera="); continue }
            result.append(a)
        }
        return result
    }
}
