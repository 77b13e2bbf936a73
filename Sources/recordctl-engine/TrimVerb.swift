import Foundation
import RecordCtlSupport
import RecordKitMedia

/// `recordctl trim`: a lossless cut of a finished recording (docs/recordctl/trim.md); blocking,
/// on the main thread, which has nothing else to do.
enum TrimVerb {
    /// Cuts `file` to [`start`, `end`) seconds into `output`; returns the exit code.
    static func run(file: String, start: Double, end: Double, output destination: String, overwrite: Bool) -> Int32 {
        if !overwrite, FileManager.default.fileExists(atPath: destination) {
            Console.error("\(destination) exists; give another --output, or --overwrite to replace it")
            return ExitCodes.cannotCreate
        }
        do throws(MovieTrimError) {
            let report = try MovieTrimmer.trim(input: URL(fileURLWithPath: file), start: start, end: end,
                                               output: URL(fileURLWithPath: destination), replacingExisting: overwrite)
            Console.out("\(destination): \(report)")
            return 0
        } catch {
            Console.error(error.description)
            return exitCode(for: error)
        }
    }

    /// The documented exit code of each trim error.
    static func exitCode(for error: MovieTrimError) -> Int32 {
        switch error {
        case .invalidRange, .startBeyondDuration: return ExitCodes.usage
        case .notAMovie: return ExitCodes.dataError
        case .inputMissing: return ExitCodes.noInput
        case .outputUnwritable: return ExitCodes.cannotCreate
        case .failed: return ExitCodes.failed
        }
    }
}
