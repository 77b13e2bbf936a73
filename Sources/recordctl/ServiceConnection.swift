import Foundation
import Glibc
import RecordCtlSupport
import RecordKitControl

/// Connects `recordctl` to `recordd`, starting the service on demand (as tmux starts its server).
enum ServiceConnection {
    /// A client connected to a running service; starts one when `startIfNeeded` and none answers.
    static func connect(startIfNeeded: Bool) throws(ControlError) -> ControlClient {
        let paths = ServicePaths()
        do throws(ControlError) { return try ControlClient(paths: paths) } catch {
            if error.code == .permissionDenied { throw error }  // an unsafe directory or another user's socket
        }
        guard startIfNeeded else { throw ControlError(.unavailable, "recordd is not running") }
        let process = try launch(paths: paths)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if let client = try? ControlClient(paths: paths), (try? client.request(.hello)) != nil {
                return try ControlClient(paths: paths)
            }
            if !process.isRunning {
                // It exited: another service won the race (then connect), or it failed (say why).
                if let client = try? ControlClient(paths: paths) { return client }
                throw ControlError(.unavailable, "recordd could not start: \(lastLogLine(paths) ?? "exit status \(process.terminationStatus)")")
            }
            usleep(50_000)
        }
        throw ControlError(.unavailable, "recordd did not come up within 5 s; see \(paths.logPath)")
    }

    /// Starts `recordd` (the binary beside this one) detached, logging to the state directory.
    static func launch(paths: ServicePaths) throws(ControlError) -> Process {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("recordd").path
        guard FileManager.default.isExecutableFile(atPath: exe) else {
            throw ControlError(.unavailable, "cannot start the service: \(exe) is missing (build the recordd product)")
        }
        try? FileManager.default.createDirectory(atPath: paths.stateDirectory, withIntermediateDirectories: true)
        let logFD = open(paths.logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: exe)
        process.arguments = []
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = logFD >= 0 ? FileHandle(fileDescriptor: logFD, closeOnDealloc: false) : FileHandle.nullDevice
        process.standardError = logFD >= 0 ? FileHandle(fileDescriptor: logFD, closeOnDealloc: false) : FileHandle.nullDevice
        do { try process.run() } catch {
            throw ControlError(.unavailable, "cannot start \(exe): \(error.localizedDescription)")
        }
        if logFD >= 0 { close(logFD) }
        return process
    }

    /// The service log's last line, without its timestamp prefix.
    private static func lastLogLine(_ paths: ServicePaths) -> String? {
        guard let text = try? String(contentsOfFile: paths.logPath, encoding: .utf8),
              let line = text.split(separator: "\n").last else { return nil }
        if let r = line.range(of: "]: ") { return String(line[r.upperBound...]) }
        return String(line)
    }
}
