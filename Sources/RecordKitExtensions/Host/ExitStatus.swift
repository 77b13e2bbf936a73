import Glibc

/// How an extension process ended, as `wait4` reported it.
struct ExitStatus: Sendable, Equatable, CustomStringConvertible {
    /// The exit status of a process that exited, or nil when a signal ended it.
    var code: Int32?
    /// The signal that ended the process, or nil when it exited.
    var signal: Int32?
    /// CPU seconds the process used (user + system).
    var cpuSeconds: Double

    /// From a `wait4` status word and its resource usage.
    init(waitStatus: Int32, usage: rusage) {
        let termsig = waitStatus & 0x7f
        if termsig == 0 {
            code = (waitStatus >> 8) & 0xff
            signal = nil
        } else {
            code = nil
            signal = termsig
        }
        cpuSeconds = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// "exited with status 3", "crashed with signal 11 (SIGSEGV)".
    var description: String {
        if let signal { return "crashed with signal \(signal) (\(Self.name(of: signal)))" }
        return "exited with status \(code ?? -1)"
    }

    /// The conventional name of a signal.
    static func name(of signal: Int32) -> String {
        let names: [Int32: String] = [SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
                                      SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
                                      SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
                                      SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGSYS: "SIGSYS"]
        return names[signal] ?? "signal \(signal)"
    }
}
