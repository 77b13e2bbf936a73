import ArgumentParser
import RecordCtlSupport
import RecordKitControl

/// `recordctl mark`.
struct MarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark",
        abstract: "Add a chapter marker at the current moment of the recording; print its time in seconds.",
        discussion: "Every handler receives it (broadcastAnnotated); the file gets a chapter there (MP4 and Matroska), a saved replay "
            + "the markers inside its window. docs/recordctl/mark.md.")

    @Argument(help: "The chapter's title (default: \"Chapter N\").")
    var title: String?

    func run() throws {
        let result: ControlResult
        do throws(ControlError) {
            let client = try ServiceConnection.connect(startIfNeeded: false)
            result = try client.request(.mark, options: CommandOptions(title: title))
        } catch {
            Console.error(error.message)
            throw ExitCode(ExitCodes.code(for: error))
        }
        Console.out(String(format: "%.3f", result.time ?? 0))
    }
}
