import ArgumentParser
import RecordKitPipeline
import RecordKitService

/// The documented exit codes of `recordctl` (BSD sysexits, as many Unix tools use).
enum ExitCodes {
    /// Bad arguments: a malformed region, an unknown option value.
    static let usage: Int32 = 64
    /// The recording failed while running.
    static let failed: Int32 = 70
    /// The X display, the audio server (with --require-audio) or the window is not there.
    static let unavailable: Int32 = 69
    /// The output file cannot be created.
    static let cannotCreate: Int32 = 73

    /// The operation does not fit the state: nothing is recording, one is already running.
    static let wrongState: Int32 = 75
    /// The service belongs to another user.
    static let permissionDenied: Int32 = 77

    /// The exit code for a service error.
    static func code(for error: ControlError) -> Int32 {
        switch error.code {
        case "bad_argument", "bad_request", "unknown_command", "too_large", "version": return usage
        case "unavailable": return unavailable
        case "cannot_create_output": return cannotCreate
        case "busy", "not_recording", "invalid_state": return wrongState
        case "permission_denied": return permissionDenied
        default: return failed
        }
    }

    /// The exit code for a recorder error.
    static func code(for error: RecorderError) -> Int32 {
        switch error.kind {
        case .badArgument: return usage
        case .unavailable: return unavailable
        case .cannotCreateOutput: return cannotCreate
        case .invalidState, .failed: return failed
        }
    }
}
