import ArgumentParser
import Foundation
import RecordCtlSupport

/// `recordctl trim`: a lossless cut of a finished recording (docs/recordctl/trim.md). Runs in
/// recordctl-engine (no service needed).
struct TrimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trim",
        abstract: "Keep the part of a recording between two instants, without re-encoding it (lossless).",
        discussion: """
            A cut at a key frame copies every packet; a cut elsewhere re-encodes only the frames up to the next key frame \
            (H.264), so the output starts exactly at --start. Every audio track and the chapters inside the range are kept. \
            Prints what was done. Never replaces an existing file unless --overwrite (or --force); the output appears complete or not at all. \
            Exit codes: 0 done, 64 bad range or options, 65 not a movie that can be trimmed, 66 input missing, \
            73 output cannot be written (exists without --overwrite, directory missing or read-only), 70 trimming failed. \
            docs/recordctl/trim.md.
            """)

    @Argument(help: "The recording to trim (MP4, MOV or Matroska).")
    var file: String

    @Option(help: "Where to start, in seconds from the first frame (the frame on screen then is the first kept).")
    var start: Double

    @Option(help: "Where to end, in seconds from the first frame (frames from then on are dropped); past the end means the end.")
    var end: Double

    @Option(help: "The trimmed file (default: FILE with \"-trimmed\" before the extension). Its extension picks the container.")
    var output: String?

    /// `--overwrite`, as `record` spells it; `--force` is the same flag.
    @Flag(name: [.customLong("overwrite"), .customLong("force")], help: "Replace the output file if it exists.")
    var overwrite = false

    func validate() throws {
        guard start.isFinite, end.isFinite, start >= 0, end >= 0 else { throw ValidationError("--start and --end must be seconds ≥ 0") }
        guard start < end else { throw ValidationError("--start (\(start)) must be before --end (\(end))") }
    }

    /// FILE with "-trimmed" before its extension: rec.mp4 → rec-trimmed.mp4.
    static func defaultOutput(for file: String) -> String {
        let url = URL(fileURLWithPath: file)
        let ext = url.pathExtension
        let base = url.deletingPathExtension().lastPathComponent + "-trimmed"
        return url.deletingLastPathComponent().appendingPathComponent(ext.isEmpty ? base : base + "." + ext).path
    }

    /// Trims in recordctl-engine (this process becomes it), which links libavformat.
    func run() throws {
        let destination = output ?? Self.defaultOutput(for: file)
        try EngineHandoff.exec(.trim(file: absolutePath(file), start: start, end: end, output: absolutePath(destination), overwrite: overwrite))
    }
}
