import Glibc

/// Keeps a recording process's threads under the normal scheduling policy.
///
/// SVT-AV1, run as root, gives its threads real-time priority (`SCHED_FIFO` 99), and the thread
/// that opened the encoder too: every thread that one starts afterwards inherits it. Measured
/// in CI: after a test opened an AV1 encoder on the main thread, two load threads a later test
/// started ran at FIFO 99 and starved the machine (load 16, the X server unable to answer)
/// until the run was killed. A recorder's encoder threads must never outrank the capture, the
/// X server or the rest of the desktop, so the video encoder puts every real-time thread of the
/// process back to `SCHED_OTHER` after it opens a codec (their nice levels stay as they were).
package enum RealtimeThreads {
    /// Puts every thread of this process that runs under `SCHED_FIFO` or `SCHED_RR` back to
    /// `SCHED_OTHER`; returns how many it changed. Cheap (one read of `/proc/self/task` and a
    /// system call per thread); any thread.
    @discardableResult
    package static func demoteAll() -> Int {
        guard let directory = opendir("/proc/self/task") else { return 0 }
        defer { closedir(directory) }
        var changed = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let tid = pid_t(name), isRealtime(tid) else { continue }
            var normal = sched_param(sched_priority: 0)
            if sched_setscheduler(tid, SCHED_OTHER, &normal) == 0 { changed += 1 }
        }
        return changed
    }

    /// Whether thread `tid` of this process runs under a real-time policy.
    package static func isRealtime(_ tid: pid_t) -> Bool {
        let policy = sched_getscheduler(tid) & ~0x4000_0000  // without SCHED_RESET_ON_FORK (not in Glibc's module)
        return policy == SCHED_FIFO || policy == SCHED_RR
    }
}
