import ArgumentParser
import Foundation
import RecordKitService

/// `recordctl audio-sources`: applications playing now, sinks and sources, for
/// `--app-audio-from`, `--app-sink` and `--mic-source`.
struct AudioSourcesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio-sources",
        abstract: "List the applications playing now (name, pid, sink input), the sinks and the sources of the PulseAudio server.")

    @Flag(help: "Print the lists as JSON.")
    var json = false

    func run() throws {
        let inventory: AudioSourcesEntry
        do throws(ControlError) { inventory = try SourceListing.audioSources(server: ProcessInfo.processInfo.environment["PULSE_SERVER"]) } catch {
            Console.error(error.message)
            throw ExitCode(ExitCodes.code(for: error))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            Console.out(String(decoding: (try? encoder.encode(inventory)) ?? Data(), as: UTF8.self))
            return
        }
        Console.out("applications:")
        for app in inventory.applications {
            Console.out("  \(app.name ?? "-")\tpid \(app.pid.map(String.init) ?? "-")\tsink-input \(app.sinkInput)\tsink \(app.sink ?? "-")")
        }
        Console.out("sinks:")
        for sink in inventory.sinks { Console.out("  \(sink)") }
        Console.out("sources:")
        for source in inventory.sources { Console.out("  \(source)") }
    }
}
