import RecordKitControl

/// The documented exit codes of `recordctl` (BSD sysexits, as many Unix tools use).
package enum ExitCodes {
    /// Bad arguments: a malformed region, an unknown option value.
    package static let usage: Int32 = 64
    /// The input is not in a format the verb can use (`trim`: not a movie that can be trimmed).
    package static let dataError: Int32 = 65
    /// The input file does not exist (`trim`).
    package static let noInput: Int32 = 66
    /// The recording failed while running.
    package static let failed: Int32 = 70
    /// The X display, the audio server (with --require-audio) or the window is not there.
    package static let unavailable: Int32 = 69
    /// The output file cannot be created.
    package static let cannotCreate: Int32 = 73

    /// The operation does not fit the state: nothing is recording, one is already running.
    package static let wrongState: Int32 = 75
    /// The service belongs to another user.
    package static let permissionDenied: Int32 = 77

    /// The exit code for a service error.
    package static func code(for error: ControlError) -> Int32 {
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
