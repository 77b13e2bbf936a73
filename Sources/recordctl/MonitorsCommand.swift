import ArgumentParser

/// `recordctl monitors`: the RandR monitors of the display, for `--monitor`.
struct MonitorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitors", abstract: "List the display's RandR monitors (index, name, geometry) for --monitor.")

    @Flag(help: "Print the list as JSON.")
    var json = false

    /// Asks the display or the audio server from recordctl-engine (this process becomes it).
    func run() throws {
        try EngineHandoff.exec(.monitors(json: json))
    }
}
