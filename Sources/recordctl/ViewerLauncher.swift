import Foundation
import Glibc

/// Opens a preview page in the user's browser at a lower CPU priority than the recording, so a
/// viewer on a busy machine falls behind (and is skipped forward by the server) instead of taking
/// the CPU the encoder needs (docs/PREVIEW.md, "Cost").
///
/// `xdg-open URL` runs through `nice -n 10` in a session of its own (`POSIX_SPAWN_SETSID`): with
/// Linux's autogroup scheduling (`/proc/sys/kernel/sched_autogroup_enabled`) a nice value counts
/// only against processes of the same session, so the new session's group is niced too
/// (`/proc/PID/autogroup`; any user may lower the priority of its own processes). A browser that
/// starts from this launch inherits both. A browser that was already running only opens a tab and
/// keeps its own priority: nothing here can change that. Every step that fails is skipped; the page
/// opens anyway. The URL is one argument, no shell.
enum ViewerLauncher {
    /// The nice value the browser gets (0 normal, 19 lowest).
    static let niceness = 10
    /// glibc's `POSIX_SPAWN_SETSID` (`<spawn.h>`, hidden behind `_GNU_SOURCE` from Swift).
    private static let spawnSetsid: Int16 = 0x80

    /// Starts `xdg-open url`; returns its process id. Throws when it could not be started.
    static func open(_ url: String) throws -> pid_t {
        let args = ["/usr/bin/env", "nice", "-n", String(niceness), "xdg-open", url]
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, spawnSetsid)
        var cArgs: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for arg in cArgs { free(arg) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, args[0], nil, &attributes, &cArgs, environ)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        // The session's scheduling group: best effort (no autogroup, an old kernel: skipped).
        if let handle = FileHandle(forWritingAtPath: "/proc/\(pid)/autogroup") {
            try? handle.write(contentsOf: Data("\(niceness)".utf8))
            try? handle.close()
        }
        return pid
    }
}
