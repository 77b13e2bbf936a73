import ArgumentParser
import RecordKitService

/// The documented exit codes of `recordctl` (BSD sysexits, as many Unix tools use).
enum ExitCodes {
    /// Bad arguments: a malformed region, an unknown option value.
    static let usage: Int32 = 64
    /// The input is not in a format the verb can use (`trim`: not a movie that can be trimmed).
    static let dataError: Int32 = 65
    /// The input file does not exist (`trim`).
    static let noInput: Int32 = 66
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
        case .badArgument, .badRequest, .unknownCommand, .tooLarge, .version: return usage
        case .unavailable: return unavailable
        case .cannotCreateOutput: return cannotCreate
        case .busy, .notRecording, .invalidState: return wrongState
        case .permissionDenied: return permissionDenied
        case .failed, .tooSlow: return failed
        }
    }
}
