import ArgumentParser
import Foundation
import Glibc
import RecordCtlSupport
import RecordKitControl

/// `recordctl uploads [list|pause|resume|cancel|wait]`.
struct UploadsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uploads", abstract: "List and steer the service's uploads.",
        discussion: "Exit codes: 0 success, 64 unknown upload id, 69 the service is not running, 70 (wait) an upload failed or was cancelled. docs/UPLOADS.md.",
        subcommands: [List.self, Pause.self, Resume.self, Cancel.self, Wait.self], defaultSubcommand: List.self)

    /// `uploads` / `uploads list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every upload: state, bytes done / total, rate, time left, attempts, last error.")
        @Flag(help: "Print JSON (an array of upload objects, docs/PROTOCOL.md).") var json = false
        func run() throws {
            // Starts the service if needed: its queue then resumes what an earlier one left.
            let uploads = try uploadRequest(.uploads, CommandOptions()).uploads ?? []
            if json { Console.json(uploads) } else { for u in uploads { Console.out(UploadWaiter.line(u)) } }
        }
    }

    /// `uploads pause ID`.
    struct Pause: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause an upload (after the parts in flight).")
        @Argument var id: String
        func run() throws { try steer(.uploadPause, id) }
    }

    /// `uploads resume ID`.
    struct Resume: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume a paused or failed upload from what the server has.")
        @Argument var id: String
        func run() throws { try steer(.uploadResume, id) }
    }

    /// `uploads cancel ID`.
    struct Cancel: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel an upload and remove its unfinished parts from the server.")
        @Argument var id: String
        func run() throws { try steer(.uploadCancel, id) }
    }

    /// `uploads wait [ID…]`.
    struct Wait: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "wait", abstract: "Wait until the uploads (default: every unfinished one) end; exit 0 only if all completed.")
        @Argument var ids: [String] = []
        @Flag(help: "Print the final states as JSON.") var json = false
        func run() throws {
            let final = try UploadWaiter.wait(ids: ids, progress: isatty(2) == 1)
            if json { Console.json(final) } else { for u in final { Console.out(UploadWaiter.line(u)) } }
            if final.contains(where: { $0.state != "completed" }) { throw ExitCode(ExitCodes.failed) }
        }
    }
}

private func steer(_ cmd: ControlCommand, _ id: String) throws {
    var options = CommandOptions()
    options.uploadId = id
    for u in try uploadRequest(cmd, options).uploads ?? [] { Console.out(UploadWaiter.line(u)) }
}
