import ArgumentParser

/// `recordctl audio-sources`: applications playing now, sinks and sources, for
/// `--app-audio-from`, `--app-sink` and `--mic-source`.
struct AudioSourcesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio-sources",
        abstract: "List the applications playing now (name, pid, sink input), the sinks and the sources of the PulseAudio server.")

    @Flag(help: "Print the lists as JSON.")
    var json = false

    /// Asks the display or the audio server from recordctl-engine (this process becomes it).
    func run() throws {
        try EngineHandoff.exec(.audioSources(json: json))
    }
}
