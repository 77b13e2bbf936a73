import CShims
import Foundation
import Glibc
import Synchronization

/// A running extension executable: spawned with its end of the socket as descriptor 3, reaped
/// by a thread of its own that reports the exit the moment it happens.
final class ExtensionProcess: Sendable {
    /// The process id.
    let pid: pid_t
    private let exit = Mutex<ExitStatus?>(nil)
    private let exited = DispatchSemaphore(value: 0)

    private init(pid: pid_t) { self.pid = pid }

    /// Starts `executable` with `socket` as descriptor 3 and `environment`; `onExit` runs on the
    /// reaper thread when the process has ended.
    static func spawn(executable: String, environment: [String: String], socket: Int32,
                      onExit: @escaping @Sendable (ExitStatus) -> Void) throws(ExtensionFailure) -> ExtensionProcess {
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(executable), nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: Int32 = 0
        let rc = cshim_spawn_with_socket(executable, argv, envp, socket, &pid)
        guard rc == 0 else { throw ExtensionFailure.spawnFailed("\(executable): \(String(cString: strerror(rc)))") }
        let child = pid
        let process = ExtensionProcess(pid: child)
        let reaper = Thread {
            var status: Int32 = 0
            var usage = rusage()
            while wait4(child, &status, 0, &usage) < 0 {
                if errno != EINTR { status = 0x7f; break }  // cannot happen for our own child
            }
            let result = ExitStatus(waitStatus: status, usage: usage)
            process.exit.withLock { $0 = result }
            process.exited.signal()
            onExit(result)
        }
        reaper.name = "recordkit.extension.reaper.\(child)"
        reaper.start()
        return process
    }

    /// How the process ended, once it has.
    var exitStatus: ExitStatus? { exit.withLock { $0 } }

    /// Waits up to `timeoutMs` for the process to end; its status, or nil if it still runs.
    func waitForExit(timeoutMs: Int) -> ExitStatus? {
        if let status = exitStatus { return status }
        guard exited.wait(timeout: .now() + .milliseconds(timeoutMs)) == .success else { return nil }
        exited.signal()  // for the next waiter
        return exitStatus
    }

    /// Kills the process (SIGKILL) unless it has already been reaped.
    func kill() {
        exit.withLock { status in
            if status == nil { _ = Glibc.kill(pid, SIGKILL) }
        }
    }
}
