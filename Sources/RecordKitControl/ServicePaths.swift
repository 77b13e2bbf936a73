import Foundation
import Glibc

/// Where the service keeps its socket, log and session directories (XDG base directories).
package struct ServicePaths: Sendable {
    /// `$XDG_RUNTIME_DIR/recordkit` (mode 0700), else `/tmp/recordkit-<uid>`.
    package var runtimeDirectory: String
    /// The control socket (mode 0600).
    package var socketPath: String { runtimeDirectory + "/" + socketName }
    /// The socket's file name: `recordd.sock` for the service, `record.sock` for a foreground
    /// `recordctl record` (``foregroundRecording``).
    package var socketName = "recordd.sock"

    /// The same paths with the socket a foreground `recordctl record` listens on for the live
    /// switches (`recordctl mic|app-audio|camera off|on`), in the same private directory, with
    /// the same checks on both sides.
    package var foregroundRecording: ServicePaths {
        var paths = self
        paths.socketName = "record.sock"
        return paths
    }
    /// `$XDG_STATE_HOME/recordkit` (else `~/.local/state/recordkit`).
    package var stateDirectory: String
    /// One directory per recording.
    package var sessionsDirectory: String { stateDirectory + "/sessions" }
    /// The service's log when started on demand.
    package var logPath: String { stateDirectory + "/recordd.log" }

    /// Paths from the environment.
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let xdg = environment["XDG_RUNTIME_DIR"], !xdg.isEmpty {
            runtimeDirectory = xdg + "/recordkit"
        } else {
            runtimeDirectory = "/tmp/recordkit-\(getuid())"
        }
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty {
            stateDirectory = state + "/recordkit"
        } else {
            stateDirectory = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/recordkit"
        }
    }

    /// Creates the runtime directory private to this user (0700) when it is missing, then
    /// trusts it only if it is safe (``checkRuntimeDirectory()``). The service calls this before
    /// it binds its socket.
    package func preparePrivateRuntimeDirectory() throws(ControlError) {
        if mkdir(runtimeDirectory, 0o700) == 0 {
            chmod(runtimeDirectory, 0o700)  // whatever the umask
        } else if errno != EEXIST {
            throw ControlError(.unavailable, "cannot create the runtime directory \(runtimeDirectory): \(String(cString: strerror(errno)))")
        }
        try checkRuntimeDirectory()
    }

    /// Throws `permission_denied` unless the runtime directory is safe: a real directory (not a
    /// symlink), owned by this user, mode 0700 (nobody else can enter it or plant a socket in
    /// it). This holds for `$XDG_RUNTIME_DIR/recordkit` and for the `/tmp` fallback alike,
    /// where another local user may have created the directory first. The client calls this
    /// before it connects, the service before it binds; neither repairs a directory it did not
    /// just create.
    package func checkRuntimeDirectory() throws(ControlError) {
        var st = stat()
        guard lstat(runtimeDirectory, &st) == 0 else {
            throw ControlError(.unavailable, "the runtime directory \(runtimeDirectory) does not exist: \(String(cString: strerror(errno)))")
        }
        let fix = "remove it (rm -r \(runtimeDirectory)) if it is yours, or set XDG_RUNTIME_DIR to a private directory"
        if (st.st_mode & S_IFMT) == S_IFLNK {
            throw ControlError(.permissionDenied, "the runtime directory \(runtimeDirectory) is a symbolic link; refusing to use it: \(fix)")
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ControlError(.permissionDenied, "the runtime directory \(runtimeDirectory) is not a directory; refusing to use it: \(fix)")
        }
        guard st.st_uid == getuid() else {
            throw ControlError(.permissionDenied, "the runtime directory \(runtimeDirectory) belongs to uid \(st.st_uid), not to you (uid \(getuid())); "
                               + "another user may be impersonating the service, refusing to use it: set XDG_RUNTIME_DIR to a private directory")
        }
        guard st.st_mode & 0o7777 == 0o700 else {
            throw ControlError(.permissionDenied, "the runtime directory \(runtimeDirectory) has mode \(String(st.st_mode & 0o7777, radix: 8)), not 700; "
                               + "refusing to use it: chmod 700 \(runtimeDirectory) if you trust what is in it, else \(fix)")
        }
    }

    /// Throws `permission_denied` when the control socket's path is a symbolic link (`lstat`):
    /// the client never follows one, since whatever it points at (another socket of this user,
    /// a program that logs what it gets) is not the service's socket, and a `start` request
    /// carries stream keys. A path that does not exist is left to `connect` (`unavailable`).
    package func checkSocketPath() throws(ControlError) {
        var st = stat()
        guard lstat(socketPath, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return }
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(socketPath, &target, target.count - 1)
        let pointee = length > 0 ? " (to \(String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)))" : ""
        throw ControlError(.permissionDenied, "the control socket \(socketPath) is a symbolic link\(pointee), not recordd's socket; "
                           + "nothing was sent to it (a request may carry a stream key): remove it (rm \(socketPath)) and start recordd again")
    }
}
