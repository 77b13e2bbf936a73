import CShims
import Foundation
import Glibc

/// Runs one hook command through `/bin/sh -c`, bounded in time and in the output it keeps.
///
/// The command runs in a process group of its own with stdin from /dev/null; past its time
/// bound the whole group gets SIGTERM and, 2 s later, SIGKILL, so a hook that starts children
/// cannot outlive its bound. Blocking: call it from a queue or thread of your own.
package enum HookProcess {
    /// Output kept from one hook for the log (the rest is read and dropped).
    package static let maxOutputBytes = 16 * 1024

    /// Runs `command` with `arguments` as `$1`, `$2`, … and `environment` added to this
    /// process's; returns once it (and its output pipe) ended, at most `timeout` + 2 s later.
    package static func run(command: String, arguments: [String], environment: [String: String], timeout: Double) -> HookOutcome {
        let started = Date()
        var fds: [Int32] = [0, 0]
        guard cshim_pipe_cloexec(&fds) == 0 else {
            return HookOutcome(ending: .notStarted("pipe: \(String(cString: strerror(errno)))"), output: "", seconds: 0)
        }
        let (readFD, writeFD) = (fds[0], fds[1])
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let argvStrings = ["/bin/sh", "-c", command, "recordkit-hook"] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = argvStrings.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        var pid: Int32 = 0
        let rc = cshim_spawn_with_output("/bin/sh", argv, envp, writeFD, &pid)
        for p in argv + envp { free(p) }
        close(writeFD)
        guard rc == 0 else {
            close(readFD)
            return HookOutcome(ending: .notStarted("/bin/sh: \(String(cString: strerror(rc)))"), output: "", seconds: 0)
        }
        var output: [UInt8] = []
        var timedOut = false
        var killDeadline: Date?
        let deadline = started.addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 4096)
        var open = true
        // Read until every writer closed the pipe (the group is gone), enforcing the bound.
        while open {
            let now = Date()
            if !timedOut, now >= deadline {
                timedOut = true
                kill(-pid, SIGTERM)
                killDeadline = now.addingTimeInterval(2)
            }
            if let k = killDeadline, now >= k {
                kill(-pid, SIGKILL)
                killDeadline = nil
            }
            var p = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, 100)
            if ready < 0 { if errno == EINTR { continue } else { break } }
            if ready == 0 { continue }
            let n = chunk.withUnsafeMutableBytes { Glibc.read(readFD, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { open = false; break }
            if output.count < maxOutputBytes { output.append(contentsOf: chunk[0..<min(n, maxOutputBytes - output.count)]) }
        }
        close(readFD)
        // The pipe closed: the shell is ending or gone; reap it (bounded by the same rules).
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno != EINTR) { break }
            if !timedOut, Date() >= deadline { timedOut = true; kill(-pid, SIGTERM); killDeadline = Date().addingTimeInterval(2) }
            if let k = killDeadline, Date() >= k { kill(-pid, SIGKILL); killDeadline = nil }
            usleep(20_000)
        }
        if timedOut { kill(-pid, SIGKILL) }  // whatever of the group still lingers without the pipe
        let text = String(decoding: output, as: UTF8.self)
        let seconds = Date().timeIntervalSince(started)
        if timedOut { return HookOutcome(ending: .timedOut(seconds: timeout), output: text, seconds: seconds) }
        let ending: HookOutcome.Ending = (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
        return HookOutcome(ending: ending, output: text, seconds: seconds)
    }
}
