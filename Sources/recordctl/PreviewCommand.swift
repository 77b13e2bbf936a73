import ArgumentParser
import Foundation
import RecordCtlSupport
import RecordKitControl

/// `recordctl preview`: the URL of the running recording's page (or of the last recording's
/// review), optionally opened with `xdg-open`.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Print the preview page's URL (live while recording, the review after stop); --open opens it.",
        discussion: "The URL carries the page's secret token: anyone with it can watch and control the recording. "
            + "The recording must have been started with --preview. See docs/PREVIEW.md.")

    @Flag(help: "Open the page with xdg-open, at a lower CPU priority than the recording (nice 10).")
    var open = false

    func run() throws {
        let status = try serviceRequest(.status, startIfNeeded: false).status
        guard let status, let url = previewURL(in: status) else {
            Console.error("no preview page: start a recording with --preview (recordctl start --preview)")
            throw ExitCode(ExitCodes.failed)
        }
        Console.out(url)
        if open { try openInBrowser(url) }
    }
}

/// `recordctl review`: reopens the last recording's review page (kept by the service until
/// the page keeps or discards the movie).
struct ReviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Print (and with --open, open) the review page of the last recording made with --preview.")

    @Flag(help: "Open the page with xdg-open, at a lower CPU priority than the recording (nice 10).")
    var open = false

    func run() throws {
        let status = try serviceRequest(.status, startIfNeeded: false).status
        guard let status, status.recording == nil, let url = status.last?.outputs.first(where: { $0.hasPrefix("http://127.0.0.1:") }) else {
            Console.error(status?.recording != nil ? "a recording is in progress: `recordctl preview` shows it live"
                                                   : "no review: the last recording was not made with --preview, or it was discarded")
            throw ExitCode(ExitCodes.failed)
        }
        Console.out(url)
        if open { try openInBrowser(url) }
    }
}

/// Runs `xdg-open URL` at a lower priority than the recording (``ViewerLauncher``).
private func openInBrowser(_ url: String) throws {
    do { _ = try ViewerLauncher.open(url) } catch {
        Console.error("could not run xdg-open: \(error.localizedDescription); open the URL above yourself")
        throw ExitCode(ExitCodes.failed)
    }
}
