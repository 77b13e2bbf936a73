import ArgumentParser
import RecordCtlSupport
import RecordKitControl

/// `recordctl split`.
struct SplitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Close the current file at the next key frame and continue into a new one; print the closed part's path.",
        discussion: "No frame is lost or repeated between the parts; each starts at zero and plays alone. Parts are named NAME-001.mp4, "
            + "NAME-002.mp4, …; each is finalized while the next is written, and is a `file-part` event. docs/recordctl/split.md.")

    func run() throws {
        let result: ControlResult
        do throws(ControlError) {
            let client = try ServiceConnection.connect(startIfNeeded: false)
            result = try client.request(.split)
        } catch {
            Console.error(error.message)
            throw ExitCode(ExitCodes.code(for: error))
        }
        Console.out(result.path ?? "")
    }
}
