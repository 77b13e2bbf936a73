import ArgumentParser
import RecordCtlSupport
import RecordKitControl

/// `--split-every SECONDS` and `--split-size MB`, shared by `record` and `start`: cut the file
/// into parts by itself, at key frames (docs/recordctl/split.md).
struct SplitOptions: ParsableArguments {
    @Option(name: .customLong("split-every"),
            help: ArgumentHelp("Cut the file into parts of about SECONDS each (at the first key frame after), named NAME-001.mp4, NAME-002.mp4, …; "
                               + "each part is finalized while the next is written.", valueName: "SECONDS"))
    var seconds: Double?

    @Option(name: .customLong("split-size"),
            help: ArgumentHelp("Cut the file into parts of about MB megabytes (10^6 bytes) each, at key frames.", valueName: "MB"))
    var megabytes: Double?

    func validate() throws {
        if let seconds, !(seconds >= 1 && seconds.isFinite) { throw ValidationError("--split-every must be at least 1 second, got \(seconds)") }
        if let megabytes, !(megabytes >= 0.1 && megabytes.isFinite) { throw ValidationError("--split-size must be at least 0.1 MB, got \(megabytes)") }
    }

    /// Sets these options on `arguments`.
    func apply(to arguments: inout StartArguments) {
        arguments.splitEvery = seconds
        arguments.splitSize = megabytes
    }
}
