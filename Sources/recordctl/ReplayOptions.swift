import ArgumentParser
import RecordCtlSupport
import RecordKitControl

/// `--replay-buffer SECONDS` and its memory bound, shared by `record` and `start`: keep the last
/// seconds in memory for `recordctl save-replay` (docs/recordctl/save-replay.md).
struct ReplayOptions: ParsableArguments {
    @Option(name: .customLong("replay-buffer"),
            help: ArgumentHelp("Keep the last SECONDS of the recording in memory (no extra encode); `recordctl save-replay` writes them to an MP4. "
                               + "With --no-file, only the buffer is kept.", valueName: "SECONDS"))
    var seconds: Double?

    @Option(name: .customLong("replay-buffer-max-mb"),
            help: ArgumentHelp("The most memory the replay buffer holds, in MiB (default 512); whole groups of pictures are dropped beyond it.",
                               valueName: "MIB"))
    var maxMegabytes: Int?

    func validate() throws {
        if let seconds, !(seconds > 0 && seconds <= 3600) { throw ValidationError("--replay-buffer must be between 0 and 3600 seconds, got \(seconds)") }
        if let maxMegabytes, !(1...65_536).contains(maxMegabytes) { throw ValidationError("--replay-buffer-max-mb must be between 1 and 65536, got \(maxMegabytes)") }
        if maxMegabytes != nil && seconds == nil { throw ValidationError("--replay-buffer-max-mb needs --replay-buffer") }
    }

    /// Sets these options on `arguments`.
    func apply(to arguments: inout StartArguments) {
        arguments.replayBuffer = seconds
        arguments.replayBufferMaxMegabytes = maxMegabytes
    }
}
