import Foundation
import RecordCtlSupport
import RecordKitService

/// `recordctl monitors` and `recordctl audio-sources`: what the display and the audio server
/// offer, for `--monitor`, `--app-audio-from`, `--app-sink` and `--mic-source`.
enum SourceListingVerbs {
    /// The display's RandR monitors; 69 without a display.
    static func monitors(json: Bool) -> Int32 {
        let monitors: [MonitorEntry]
        do throws(ControlError) { monitors = try SourceListing.monitors(display: ProcessInfo.processInfo.environment["DISPLAY"]) } catch {
            Console.error(error.message)
            return ExitCodes.code(for: error)
        }
        if json {
            Console.json(monitors)
            return 0
        }
        for m in monitors {
            Console.out("\(m.index)\t\(m.name)\t\(m.width)x\(m.height)+\(m.x)+\(m.y)\(m.isPrimary ? "\tprimary" : "")")
        }
        return 0
    }

    /// The applications playing now, the sinks and the sources; 69 without a server.
    static func audioSources(json: Bool) -> Int32 {
        let inventory: AudioSourcesEntry
        do throws(ControlError) { inventory = try SourceListing.audioSources(server: ProcessInfo.processInfo.environment["PULSE_SERVER"]) } catch {
            Console.error(error.message)
            return ExitCodes.code(for: error)
        }
        if json {
            Console.json(inventory)
            return 0
        }
        Console.out("applications:")
        for app in inventory.applications {
            Console.out("  \(app.name ?? "-")\tpid \(app.pid.map(String.init) ?? "-")\tsink-input \(app.sinkInput)\tsink \(app.sink ?? "-")")
        }
        Console.out("sinks:")
        for sink in inventory.sinks { Console.out("  \(sink)") }
        Console.out("sources:")
        for source in inventory.sources { Console.out("  \(source)") }
        return 0
    }
}
