import Foundation
import Glibc

/// Where the service keeps its socket, log and session directories (XDG base directories).
public struct ServicePaths: Sendable {
    /// `$XDG_RUNTIME_DIR/recordkit` (mode 0700), else `/tmp/recordkit-<uid>`.
    public var runtimeDirectory: String
    /// The control socket (mode 0600).
    public var socketPath: String { runtimeDirectory + "/recordd.sock" }
    /// `$XDG_STATE_HOME/recordkit` (else `~/.local/state/recordkit`).
    public var stateDirectory: String
    /// One directory per recording.
    public var sessionsDirectory: String { stateDirectory + "/sessions" }
    /// The service's log when started on demand.
    public var logPath: String { stateDirectory + "/recordd.log" }

    /// Paths from the environment.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
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

    /// Creates the runtime directory private to this user (0700) and checks that nobody else
    /// owns it or can enter it.
    public func preparePrivateRuntimeDirectory() throws(ControlError) {
        mkdir(runtimeDirectory, 0o700)
        var st = stat()
        guard lstat(runtimeDirectory, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ControlError(.unavailable, "cannot create the runtime directory \(runtimeDirectory)")
        }
        guard st.st_uid == getuid() else {
            throw ControlError(.unavailable, "\(runtimeDirectory) belongs to uid \(st.st_uid), not to you; refusing to use it")
        }
        if st.st_mode & 0o077 != 0 { chmod(runtimeDirectory, 0o700) }
    }
}
