import RecordKitExtensions

extension StartArguments {
    /// The `replay-buffer` extension request `--replay-buffer SECONDS` stands for, or nil.
    var replayRequest: ExtensionRequest? {
        guard let replayBuffer else { return nil }
        var setup = ["seconds": String(replayBuffer)]
        if let replayBufferMaxMegabytes { setup["max-megabytes"] = String(replayBufferMaxMegabytes) }
        return ExtensionRequest(name: "replay-buffer", setup: setup)
    }
}
