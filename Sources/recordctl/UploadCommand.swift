import ArgumentParser
import Foundation
import Glibc
import RecordCtlSupport
import RecordKitControl

/// `recordctl upload FILE… --to TARGET`: hands the files to the service's upload queue, then
/// (unless --no-wait) follows them to the end, with a progress bar on a terminal.
struct UploadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload files to S3-compatible storage, a presigned URL or a tus server; the service owns the transfer.",
        discussion: "TARGET is s3://BUCKET/PREFIX, https://… (a presigned PUT URL) or tus+https://… . The upload goes on if recordctl exits "
            + "and resumes after a service restart. Exit codes: 0 uploaded, 64 malformed target or option, 66 no such file, 69 the service "
            + "is unavailable, 70 the upload failed (the reason is printed), 77 no usable credentials. docs/UPLOADS.md.")

    @Argument(help: ArgumentHelp("The files to upload.", valueName: "FILE"))
    var files: [String]

    @Option(name: .customLong("to"), help: ArgumentHelp("Where: s3://BUCKET/PREFIX, tus+https://…, or a presigned URL given as - (read from standard input) or @FILE.", valueName: "TARGET"))
    var target: String

    @OptionGroup(title: "Upload") var flags: UploadFlags

    @Flag(name: .customLong("no-wait"), help: "Print the upload ids and return once queued.")
    var noWait = false

    @Flag(help: "Print the final state of each upload as JSON.")
    var json = false

    func run() throws {
        let paths = files.map(absolutePath)
        for p in paths where !FileManager.default.fileExists(atPath: p) {
            Console.error("no such file: \(p)")
            throw ExitCode(ExitCodes.noInput)
        }
        var options = CommandOptions()
        options.files = paths
        options.upload = flags.options(target: try UploadFlags.target(target), config: try configFile().uploads)
        let queued = try uploadRequest(.upload, options).uploads ?? []
        if noWait {
            for u in queued { Console.out(u.id) }
            return
        }
        let final = try UploadWaiter.wait(ids: queued.map(\.id), progress: isatty(2) == 1)
        if json { Console.json(final) } else { for u in final { Console.out(UploadWaiter.line(u)) } }
        if final.contains(where: { $0.state != "completed" }) { throw ExitCode(ExitCodes.failed) }
    }
}

/// Sends an upload command; prints the error and exits with its code on failure.
func uploadRequest(_ cmd: ControlCommand, _ options: CommandOptions, startIfNeeded: Bool = true) throws -> ControlResult {
    do throws(ControlError) {
        let client = try ServiceConnection.connect(startIfNeeded: startIfNeeded)
        return try client.request(cmd, options: options)
    } catch {
        Console.error(error.message)
        throw ExitCode(ExitCodes.code(for: error))
    }
}

/// Follows uploads to their end by asking the service twice a second.
enum UploadWaiter {
    /// The uploads `ids` (empty: every upload not over when called) once each is over.
    static func wait(ids: [String], progress: Bool) throws -> [UploadStatus] {
        var watched = Set(ids)
        if watched.isEmpty { watched = Set((try uploadRequest(.uploads, CommandOptions()).uploads ?? []).filter { !$0.isFinal }.map(\.id)) }
        while true {
            let all = try uploadRequest(.uploads, CommandOptions()).uploads ?? []
            let mine = all.filter { watched.contains($0.id) }
            if mine.count < watched.count {
                let missing = watched.subtracting(mine.map(\.id)).sorted().joined(separator: ", ")
                Console.error("no upload \(missing): see `recordctl uploads`")
                throw ExitCode(ExitCodes.usage)
            }
            if progress { Console.status("\r" + bar(mine)) }
            if mine.allSatisfy(\.isFinal) {
                if progress { Console.status("\n") }
                return mine
            }
            usleep(500_000)
        }
    }

    /// `[#####-----]  45%  12.3 MiB/s  0:12 left`.
    static func bar(_ uploads: [UploadStatus]) -> String {
        let done = uploads.reduce(Int64(0)) { $0 + $1.bytesDone }
        let total = max(1, uploads.reduce(Int64(0)) { $0 + $1.bytesTotal })
        let rate = uploads.compactMap(\.bytesPerSecond).reduce(0, +)
        let fraction = Double(done) / Double(total)
        let filled = Int(fraction * 30)
        var s = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled) + "] "
        s += String(format: "%3.0f%%  ", fraction * 100) + mib(rate) + "/s"
        if rate > 0 { let left = Int(Double(total - done) / rate); s += String(format: "  %d:%02d left", left / 60, left % 60) }
        return s + "   "
    }

    /// One line per upload for people.
    static func line(_ u: UploadStatus) -> String {
        var s = "\(u.id)  \(u.state)  \(mib(Double(u.bytesDone)))/\(mib(Double(u.bytesTotal)))"
        if let rate = u.bytesPerSecond { s += "  \(mib(rate))/s" }
        if let left = u.secondsLeft { s += String(format: "  %.0f s left", left) }
        if u.attempts > 0 { s += "  attempts \(u.attempts)" }
        s += "  \(u.path) -> \(u.objectURL ?? u.key.map { u.target.hasPrefix("s3://") ? "s3://\(u.target.dropFirst(5).split(separator: "/").first ?? "")/\($0)" : $0 } ?? u.target)"
        if let e = u.lastError { s += "  (\(e))" }
        return s
    }

    static func mib(_ bytes: Double) -> String { String(format: "%.1f MiB", bytes / 1_048_576) }
}
