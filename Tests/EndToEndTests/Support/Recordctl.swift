import Foundation

/// Runs the built `recordctl` as a subprocess against the rig.
///
/// Documented exit codes (recordctl's contract): 0 ok, 64 bad arguments, 69 display/audio
/// server/window unavailable, 70 recording failed, 73 output cannot be created.
struct Recordctl: Sendable {
    enum Exit {
        static let ok: Int32 = 0
        static let usage: Int32 = 64
        static let unavailable: Int32 = 69
        static let software: Int32 = 70
        static let cantCreate: Int32 = 73
    }

    let rig: Rig
    let path: String

    init(_ rig: Rig) throws {
        self.rig = rig
        self.path = try rig.recordctlPath()
    }

    /// `recordctl record ARGS`, to completion, bounded by `timeout`.
    func record(_ arguments: [String], environment: [String: String]? = nil, currentDirectory: String? = nil,
                timeout: TimeInterval = 90) throws -> ProcessResult {
        try ProcessRunner.run(path, ["record"] + arguments, environment: environment ?? rig.environment,
                              currentDirectory: currentDirectory, timeout: timeout)
    }

    /// Starts `recordctl record ARGS` and returns at once.
    func start(_ arguments: [String], environment: [String: String]? = nil,
               currentDirectory: String? = nil) throws -> RunningProcess {
        try RunningProcess(path, ["record"] + arguments, environment: environment ?? rig.environment,
                           currentDirectory: currentDirectory)
    }
}
