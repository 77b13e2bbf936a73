import Foundation
import Glibc
import ArgumentParser
import RecordCtlSupport

/// Runs a verb that needs FFmpeg, X11 or PulseAudio in process by replacing this process with
/// `recordctl-engine` from recordctl's own directory (as `git` runs `git-<verb>`): same pid,
/// same terminal, same signals, and the engine's exit status is recordctl's. recordctl itself
/// then never loads those libraries, so the service verbs start in a few milliseconds
/// (docs/ENCODING.md, "Start").
enum EngineHandoff {
    /// The engine beside this executable (symlinks to recordctl resolved first).
    static var enginePath: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(EngineRequest.engineName).path
    }

    /// Executes the engine with `request`; returns only by throwing (exit 70) when it cannot.
    static func exec(_ request: EngineRequest) throws -> Never {
        let path = enginePath
        guard FileManager.default.isExecutableFile(atPath: path) else {
            Console.error("cannot run `recordctl \(request.verb)`: \(path) is missing (install recordctl-engine beside recordctl)")
            throw ExitCode(ExitCodes.failed)
        }
        setenv(EngineRequest.environmentKey, try request.encoded(), 1)
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(EngineRequest.engineName), strdup(request.verb), nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        Console.error("cannot run \(path): \(reason)")
        throw ExitCode(ExitCodes.failed)
    }
}
