import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The outcome of a finished (or abandoned) subprocess.
struct ProcessResult: Sendable, CustomStringConvertible {
    /// Exit status, or 128 + signal number when the process died of a signal, or -1 if it never
    /// ended within the timeout and had to be killed.
    var exitCode: Int32
    /// The signal that ended the process, if any.
    var signal: Int32?
    var stdout: String
    var stderr: String
    /// True when the process outlived its timeout and was killed by the runner.
    var timedOut: Bool
    var seconds: Double

    var description: String {
        // The tail, where a failure's message is; but a crash's backtrace puts the crashed
        // thread first and every other thread after it, so its head is kept too.
        func clip(_ s: String) -> String {
            guard s.count > 4000 else { return s }
            if let crash = s.range(of: "*** Signal") ?? s.range(of: "Swift runtime failure") {
                return "…" + String(s[crash.lowerBound...].prefix(3000)) + "\n…\n" + String(s.suffix(1000))
            }
            return "…" + String(s.suffix(4000))
        }
        return "exit \(exitCode)\(signal.map { " (signal \($0))" } ?? "")\(timedOut ? " TIMED OUT" : "")"
            + " after \(String(format: "%.1f", seconds)) s\n--- stdout:\n\(clip(stdout))\n--- stderr:\n\(clip(stderr))"
    }

    /// The last non-empty line of stdout, trimmed.
    var lastStdoutLine: String? {
        stdout.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .last { !$0.isEmpty }
    }
}

struct ProcessRunnerError: Error, CustomStringConvertible {
    var description: String
}

/// A subprocess with captured stdout/stderr, for tests: everything it does is bounded.
///
/// Spawned with posix_spawn (Foundation's `Process` on Linux notices an exit only once every
/// descendant has closed an inherited descriptor, so a killed process with a surviving child
/// would look alive). stdin is /dev/null; signal mask and dispositions are reset; the child leads
/// its own process group, so leftovers can be cleaned up. Output is collected on background
/// threads, so a chatty child never blocks on a full pipe. `wait(timeout:)` always returns: on
/// timeout the child gets SIGTERM, then SIGKILL.
final class RunningProcess: @unchecked Sendable {
    let executable: String
    let arguments: [String]
    let pid: pid_t
    private let cond = NSCondition()
    private var out = Data()
    private var err = Data()
    private var openPipes = 2
    private var exited = false
    private var status: Int32 = 0
    private let started = Date()

    /// Starts `executable` (a path, or a name looked up in PATH).
    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
         currentDirectory: String? = nil) throws {
        guard let path = RunningProcess.resolve(executable, environment: environment) else {
            throw ProcessRunnerError(description: "executable not found: \(executable)")
        }
        self.executable = path
        self.arguments = arguments

        var outFds: [Int32] = [-1, -1], errFds: [Int32] = [-1, -1]
        // (pipe2 and posix_spawn_file_actions_addchdir_np need _GNU_SOURCE, which Glibc hides.)
        guard pipe(&outFds) == 0, pipe(&errFds) == 0 else {
            throw ProcessRunnerError(description: "pipe: \(String(cString: strerror(errno)))")
        }
        for fd in outFds + errFds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outFds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errFds[1], 2)

        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attr, &noSignals)
        posix_spawnattr_setsigdefault(&attr, &allSignals)
        posix_spawnattr_setpgroup(&attr, 0)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let env = environment ?? ProcessInfo.processInfo.environment
        // A working directory is set by `env -C DIR`, which then execs the program (same pid).
        let command = currentDirectory.map { ["/usr/bin/env", "-C", $0, path] + arguments } ?? [path] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, command[0], &actions, &attr, argv, envp)
        close(outFds[1]); close(errFds[1])
        guard rc == 0 else {
            close(outFds[0]); close(errFds[0])
            throw ProcessRunnerError(description: "posix_spawn \(path): \(String(cString: strerror(rc)))")
        }
        pid = child
        collect(outFds[0], isStdout: true)
        collect(errFds[0], isStdout: false)
        let childPid = child
        let t = Thread { [self] in
            var st: Int32 = 0
            while waitpid(childPid, &st, 0) < 0 && errno == EINTR {}
            cond.lock(); status = st; exited = true; cond.broadcast(); cond.unlock()
        }
        t.start()
    }

    private func collect(_ fd: Int32, isStdout: Bool) {
        let t = Thread { [self] in
            var buf = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                cond.lock()
                if n <= 0 {
                    openPipes -= 1
                    cond.broadcast(); cond.unlock()
                    break
                }
                if isStdout { out.append(contentsOf: buf[0 ..< n]) } else { err.append(contentsOf: buf[0 ..< n]) }
                cond.broadcast(); cond.unlock()
            }
            close(fd)
        }
        t.start()
    }

    var isRunning: Bool { cond.lock(); defer { cond.unlock() }; return !exited }

    /// stdout collected so far.
    var stdoutSoFar: String { cond.lock(); defer { cond.unlock() }; return String(decoding: out, as: UTF8.self) }
    var stderrSoFar: String { cond.lock(); defer { cond.unlock() }; return String(decoding: err, as: UTF8.self) }
    /// All of stdout, as bytes (complete once `wait` has returned).
    var stdoutData: Data { cond.lock(); defer { cond.unlock() }; return out }

    /// Sends `sig` to the process only (not its group).
    func send(_ sig: Int32) {
        if isRunning { kill(pid, sig) }
    }

    /// Waits until stdout has a complete line for which `predicate` holds; returns it, or nil if the
    /// process ended or `timeout` passed first.
    func waitForLine(timeout: TimeInterval, where predicate: (String) -> Bool = { _ in true }) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        cond.lock(); defer { cond.unlock() }
        while true {
            let text = String(decoding: out, as: UTF8.self)
            var lines = text.components(separatedBy: "\n")
            lines.removeLast()  // incomplete (or empty) tail
            if let hit = lines.first(where: { predicate($0.trimmingCharacters(in: .whitespaces)) }) {
                return hit.trimmingCharacters(in: .whitespaces)
            }
            if exited && openPipes == 0 { return nil }
            if !cond.wait(until: deadline) { return nil }
        }
    }

    /// Waits up to `timeout` for the process to end. If it does not, sends SIGTERM, waits
    /// `grace` seconds, then SIGKILL. Anything it left running in its process group is killed.
    /// Always returns.
    @discardableResult
    func wait(timeout: TimeInterval, grace: TimeInterval = 5) -> ProcessResult {
        var timedOut = false
        if !waitExit(until: Date().addingTimeInterval(timeout)) {
            timedOut = true
            kill(pid, SIGTERM)
            if !waitExit(until: Date().addingTimeInterval(grace)) {
                kill(pid, SIGKILL)
                _ = waitExit(until: Date().addingTimeInterval(10))
            }
        }
        // Children it left behind (they may hold the output pipes): end them.
        kill(-pid, SIGKILL)
        cond.lock()
        let pipeDeadline = Date().addingTimeInterval(3)
        while openPipes > 0 && cond.wait(until: pipeDeadline) {}
        let stdout = String(decoding: out, as: UTF8.self), stderr = String(decoding: err, as: UTF8.self)
        let done = exited, st = status
        cond.unlock()
        var code: Int32 = -1
        var sig: Int32?
        if done {
            let termsig = st & 0x7f
            if termsig == 0 {
                code = (st >> 8) & 0xff
            } else {
                sig = termsig
                code = 128 + termsig
            }
        }
        return ProcessResult(exitCode: code, signal: sig, stdout: stdout, stderr: stderr,
                             timedOut: timedOut, seconds: Date().timeIntervalSince(started))
    }

    /// Ends the process if it still runs: SIGTERM, then SIGKILL after `grace` seconds.
    func terminate(grace: TimeInterval = 3) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        if !waitExit(until: Date().addingTimeInterval(grace)) {
            kill(pid, SIGKILL)
            _ = waitExit(until: Date().addingTimeInterval(5))
        }
    }

    private func waitExit(until deadline: Date) -> Bool {
        cond.lock(); defer { cond.unlock() }
        while !exited {
            if !cond.wait(until: deadline) { return exited }
        }
        return true
    }

    static func resolve(_ name: String, environment: [String: String]? = nil) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = (environment ?? ProcessInfo.processInfo.environment)["PATH"]
            ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

enum ProcessRunner {
    /// Runs a command to completion (bounded by `timeout`) and returns its result.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                    currentDirectory: String? = nil, timeout: TimeInterval = 60) throws -> ProcessResult {
        let p = try RunningProcess(executable, arguments, environment: environment,
                                   currentDirectory: currentDirectory)
        return p.wait(timeout: timeout)
    }

    /// Runs a command and returns its raw stdout bytes (for decoders); throws on failure/timeout.
    static func output(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                       timeout: TimeInterval = 60) throws -> Data {
        let p = try RunningProcess(executable, arguments, environment: environment)
        let r = p.wait(timeout: timeout)
        let command = ([executable] + arguments).joined(separator: " ")
        if r.timedOut { throw ProcessRunnerError(description: "timed out after \(timeout) s: \(command)") }
        guard r.exitCode == 0 else {
            throw ProcessRunnerError(description: "\(command) failed (exit \(r.exitCode)): \(r.stderr.suffix(2000))")
        }
        return p.stdoutData
    }
}
